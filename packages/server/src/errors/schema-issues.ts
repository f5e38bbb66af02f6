import type { ValidationIssue } from './app-error.js';

/** One error of a JSON Schema check (TypeBox's and Ajv's share these members). */
export interface SchemaError {
  keyword?: string;
  schemaPath?: string;
  instancePath?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/**
 * The issues of a failed schema check, one per field at fault: an unknown member is one issue at
 * its own path, `is not a known field` (the checker reports it twice, as a `false` sub-schema and
 * as `additionalProperties`); each missing member is one issue at its own path, `is required`.
 * Other errors keep the checker's message at their path (`/` for the top).
 */
export function schemaIssues(errors: readonly SchemaError[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    if (error.keyword === 'boolean' && error.schemaPath?.endsWith('/additionalProperties')) continue;
    const base = error.instancePath ?? '';
    const named =
      error.keyword === 'additionalProperties'
        ? error.params?.additionalProperties
        : error.keyword === 'required'
          ? (error.params?.requiredProperties ?? error.params?.missingProperty)
          : undefined;
    if (named !== undefined) {
      const message = error.keyword === 'required' ? 'is required' : 'is not a known field';
      for (const name of Array.isArray(named) ? named : [named]) {
        issues.push({ path: `${base}/${String(name)}`, message });
      }
      continue;
    }
    issues.push({ path: base === '' ? '/' : base, message: error.message ?? 'is invalid' });
  }
  return issues;
}
