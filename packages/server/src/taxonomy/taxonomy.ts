import { type DomainData, TAXONOMY_DATA, TAXONOMY_VERSION, type TaxonomySurface } from './taxonomy-data.js';

/**
 * Lookups over the Open Intent taxonomy (spec 04-taxonomy.md). A domain code is `OI-N00` with N in
 * 1..29 (`OI-100` … `OI-2900`); a category code is the domain number followed by a two-digit index
 * `01`..`99` (`OI-101`, `OI-1502`, `OI-2901`). Digital domains 1..9 therefore have three-digit codes
 * and everything from `OI-1000` on has four digits; every code matches `^OI-\d{3,4}$`. A category's
 * domain is its code with the last two digits replaced by `00`.
 */

export type { TaxonomySurface };
export { TAXONOMY_VERSION };

export const DOMAIN_CODE_PATTERN = /^OI-(?:[1-9]|1[0-9]|2[0-9])00$/;
export const CATEGORY_CODE_PATTERN = /^OI-(?:[1-9]|1[0-9]|2[0-9])(?:0[1-9]|[1-9][0-9])$/;
/** The wire form every code has (the spec's `^OI-\d{3,4}$`). */
export const CODE_PATTERN = /^OI-\d{3,4}$/;

export interface TaxonomyDomain {
  code: string;
  name: string;
  description: string;
  surface: TaxonomySurface;
  categoryCodes: readonly string[];
}

export interface TaxonomyCategory {
  code: string;
  name: string;
  description: string;
  domainCode: string;
  safety: boolean;
}

function freezeDomain(domain: DomainData): TaxonomyDomain {
  return Object.freeze({
    code: domain.code,
    name: domain.name,
    description: domain.description,
    surface: domain.surface,
    categoryCodes: Object.freeze(domain.categories.map((category) => category.code)),
  });
}

const DOMAINS: readonly TaxonomyDomain[] = Object.freeze(TAXONOMY_DATA.map(freezeDomain));
const CATEGORIES: readonly TaxonomyCategory[] = Object.freeze(
  TAXONOMY_DATA.flatMap((domain) =>
    domain.categories.map((category) =>
      Object.freeze({
        code: category.code,
        name: category.name,
        description: category.description,
        domainCode: domain.code,
        safety: category.safety === true,
      }),
    ),
  ),
);
const DOMAIN_BY_CODE: ReadonlyMap<string, TaxonomyDomain> = new Map(DOMAINS.map((d) => [d.code, d]));
const CATEGORY_BY_CODE: ReadonlyMap<string, TaxonomyCategory> = new Map(CATEGORIES.map((c) => [c.code, c]));

/** All 29 domains in taxonomy order. */
export function listDomains(): readonly TaxonomyDomain[] {
  return DOMAINS;
}

/** All 173 categories in taxonomy order, or those of one domain (empty for an unknown domain). */
export function listCategories(domainCode?: string): readonly TaxonomyCategory[] {
  if (domainCode === undefined) return CATEGORIES;
  return CATEGORIES.filter((category) => category.domainCode === domainCode);
}

/** The safety categories (`OI-29NN`). */
export function listSafetyCategories(): readonly TaxonomyCategory[] {
  return CATEGORIES.filter((category) => category.safety);
}

export function getDomain(code: string): TaxonomyDomain | undefined {
  return DOMAIN_BY_CODE.get(code);
}

export function getCategory(code: string): TaxonomyCategory | undefined {
  return CATEGORY_BY_CODE.get(code);
}

export function isDomainCode(code: string): boolean {
  return DOMAIN_BY_CODE.has(code);
}

export function isCategoryCode(code: string): boolean {
  return CATEGORY_BY_CODE.has(code);
}

/** True for any code of the table, domain or category. */
export function isKnownCode(code: string): boolean {
  return DOMAIN_BY_CODE.has(code) || CATEGORY_BY_CODE.has(code);
}

/**
 * The domain code of a known code: a category's domain, or a domain code itself. Undefined for a
 * code the table does not list (also when its shape would point at a listed domain, e.g. `OI-199`).
 */
export function domainOf(code: string): string | undefined {
  if (DOMAIN_BY_CODE.has(code)) return code;
  return CATEGORY_BY_CODE.get(code)?.domainCode;
}

/** The name of a category; undefined for domain codes and unknown codes (see `domainName`). */
export function categoryName(code: string): string | undefined {
  return CATEGORY_BY_CODE.get(code)?.name;
}

/** The name of a domain; undefined for category codes and unknown codes. */
export function domainName(code: string): string | undefined {
  return DOMAIN_BY_CODE.get(code)?.name;
}

/** The name of any known code, domain or category. */
export function codeName(code: string): string | undefined {
  return CATEGORY_BY_CODE.get(code)?.name ?? DOMAIN_BY_CODE.get(code)?.name;
}

/** True only for the listed safety categories (`OI-2901` … `OI-2907`); the domain `OI-2900` is not one. */
export function isSafetyCategory(code: string): boolean {
  return CATEGORY_BY_CODE.get(code)?.safety === true;
}

/** The surface a known code belongs to: `digital` (`OI-100` … `OI-1400`) or `physical`. */
export function surfaceOf(code: string): TaxonomySurface | undefined {
  const domain = domainOf(code);
  return domain === undefined ? undefined : DOMAIN_BY_CODE.get(domain)?.surface;
}
