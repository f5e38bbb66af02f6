import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  CATEGORY_CODE_PATTERN,
  CODE_PATTERN,
  categoryName,
  codeName,
  DOMAIN_CODE_PATTERN,
  domainName,
  domainOf,
  getCategory,
  getDomain,
  isCategoryCode,
  isDomainCode,
  isKnownCode,
  isSafetyCategory,
  listCategories,
  listDomains,
  listSafetyCategories,
  surfaceOf,
  TAXONOMY_VERSION,
} from '../../src/taxonomy/taxonomy.js';
import { TAXONOMY_DATA } from '../../src/taxonomy/taxonomy-data.js';

/** Categories per domain, in table order, as 04-taxonomy.md lists them. */
const CATEGORY_COUNTS = [
  7, 7, 7, 6, 8, 5, 6, 5, 5, 6, 4, 5, 4, 5, 6, 6, 7, 5, 7, 7, 6, 7, 6, 6, 6, 6, 5, 6, 7,
];

/**
 * SHA-256 of every `code name` line (domain, then its categories) joined by newlines: the fixed part
 * of the taxonomy, checked once against the specification's table. Codes are append-only within a
 * major version; a change here means a code or name drifted.
 */
const FIXED_PART_SHA256 = 'b92d414d6d74e5ab45751f24b9666f66bda506821ac318a60aa39d3219167d5b';

describe('taxonomy: shape', () => {
  it('is version 2.1 with exactly 29 domains and 173 categories', () => {
    assert.equal(TAXONOMY_VERSION, '2.1');
    assert.equal(listDomains().length, 29);
    assert.equal(listCategories().length, 173);
    assert.deepEqual(
      listDomains().map((domain) => domain.categoryCodes.length),
      CATEGORY_COUNTS,
    );
  });

  it('keeps the codes and names of the specification', () => {
    const text = TAXONOMY_DATA.flatMap((domain) => [
      `${domain.code} ${domain.name}`,
      ...domain.categories.map((category) => `${category.code} ${category.name}`),
    ]).join('\n');
    assert.equal(createHash('sha256').update(text).digest('hex'), FIXED_PART_SHA256);
  });

  it('numbers domains OI-100 … OI-2900 in order', () => {
    assert.deepEqual(
      listDomains().map((domain) => domain.code),
      Array.from({ length: 29 }, (_, index) => `OI-${(index + 1) * 100}`),
    );
  });

  it('writes domain codes as OI-N00 and category codes as the domain number plus a two-digit index', () => {
    for (const domain of listDomains()) {
      assert.match(domain.code, DOMAIN_CODE_PATTERN);
      assert.match(domain.code, CODE_PATTERN);
      assert.doesNotMatch(domain.code, CATEGORY_CODE_PATTERN);
      const domainNumber = domain.code.slice(3, -2);
      domain.categoryCodes.forEach((code, index) => {
        assert.match(code, CATEGORY_CODE_PATTERN);
        assert.match(code, CODE_PATTERN);
        assert.doesNotMatch(code, DOMAIN_CODE_PATTERN);
        assert.equal(code, `OI-${domainNumber}${String(index + 1).padStart(2, '0')}`);
      });
    }
  });

  it('gives digital domains 1..9 three-digit codes and the rest four digits', () => {
    for (const category of listCategories()) {
      const digits = category.code.length - 3;
      const domainNumber = Number(category.domainCode.slice(3, -2));
      assert.equal(digits, domainNumber < 10 ? 3 : 4, category.code);
    }
    assert.ok(isCategoryCode('OI-101'));
    assert.ok(isCategoryCode('OI-1501'));
    assert.ok(!isCategoryCode('OI-0101'));
    assert.ok(!isCategoryCode('OI-15001'));
  });

  it('has no duplicate codes or names within a level', () => {
    const codes = [...listDomains().map((d) => d.code), ...listCategories().map((c) => c.code)];
    assert.equal(new Set(codes).size, codes.length);
    const domainNames = listDomains().map((d) => d.name);
    assert.equal(new Set(domainNames).size, domainNames.length);
    const categoryNames = listCategories().map((c) => c.name);
    assert.equal(new Set(categoryNames).size, categoryNames.length);
  });

  it('places every category in a listed domain, the one its code points at', () => {
    for (const category of listCategories()) {
      const domain = getDomain(category.domainCode);
      assert.ok(domain, category.code);
      assert.ok(domain.categoryCodes.includes(category.code));
      assert.equal(category.domainCode, `${category.code.slice(0, -2)}00`);
    }
  });

  it('describes every domain and category with one short sentence', () => {
    for (const entry of [...listDomains(), ...listCategories()]) {
      assert.ok(entry.description.length >= 10 && entry.description.length <= 120, entry.code);
      assert.match(entry.description, /^[A-Z].*\.$/, entry.code);
    }
  });

  it('splits the surfaces at OI-1500', () => {
    for (const domain of listDomains()) {
      const number = Number(domain.code.slice(3)) / 100;
      assert.equal(domain.surface, number <= 14 ? 'digital' : 'physical', domain.code);
    }
    assert.equal(surfaceOf('OI-1405'), 'digital');
    assert.equal(surfaceOf('OI-1501'), 'physical');
    assert.equal(surfaceOf('OI-999'), undefined);
  });

  it('returns frozen entries', () => {
    assert.ok(Object.isFrozen(listDomains()));
    assert.ok(Object.isFrozen(listCategories()));
    assert.ok(Object.isFrozen(getCategory('OI-101')));
  });
});

describe('taxonomy: lookups', () => {
  it('finds the domain of categories and domains', () => {
    assert.equal(domainOf('OI-101'), 'OI-100');
    assert.equal(domainOf('OI-105'), 'OI-100');
    assert.equal(domainOf('OI-1502'), 'OI-1500');
    assert.equal(domainOf('OI-2907'), 'OI-2900');
    assert.equal(domainOf('OI-1000'), 'OI-1000');
    assert.equal(domainOf('OI-100'), 'OI-100');
  });

  it('knows nothing about unlisted or malformed codes', () => {
    for (const code of [
      'OI-108',
      'OI-199',
      'OI-1100x',
      'OI-3000',
      'OI-0',
      'oi-101',
      'OI-01',
      '',
      'OI-1409',
      'OI-2908',
    ]) {
      assert.equal(isKnownCode(code), false, code);
      assert.equal(domainOf(code), undefined, code);
      assert.equal(categoryName(code), undefined, code);
      assert.equal(codeName(code), undefined, code);
      assert.equal(isSafetyCategory(code), false, code);
    }
  });

  it('names categories and domains', () => {
    assert.equal(categoryName('OI-101'), 'Code Management');
    assert.equal(categoryName('OI-104'), 'Deployment & Release');
    assert.equal(categoryName('OI-105'), 'Change Control');
    assert.equal(categoryName('OI-305'), 'Configuration Management');
    assert.equal(categoryName('OI-2905'), 'Lockout / Tagout');
    assert.equal(categoryName('OI-2105'), 'Beyond-Visual-Line-of-Sight');
    assert.equal(categoryName('OI-100'), undefined);
    assert.equal(domainName('OI-100'), 'Software Development');
    assert.equal(domainName('OI-1800'), 'Actuation & Control');
    assert.equal(domainName('OI-101'), undefined);
    assert.equal(codeName('OI-1800'), 'Actuation & Control');
    assert.equal(codeName('OI-1801'), 'Motor Control');
  });

  it('marks exactly OI-2901 … OI-2907 as safety categories', () => {
    assert.deepEqual(
      listSafetyCategories().map((c) => c.code),
      ['OI-2901', 'OI-2902', 'OI-2903', 'OI-2904', 'OI-2905', 'OI-2906', 'OI-2907'],
    );
    for (const category of listCategories()) {
      assert.equal(isSafetyCategory(category.code), category.code.startsWith('OI-29'), category.code);
    }
    assert.equal(isSafetyCategory('OI-2900'), false);
  });

  it('tells domain codes and category codes apart', () => {
    assert.ok(isDomainCode('OI-2900'));
    assert.ok(!isDomainCode('OI-2901'));
    assert.ok(isCategoryCode('OI-2901'));
    assert.ok(!isCategoryCode('OI-2900'));
    assert.ok(isKnownCode('OI-2900') && isKnownCode('OI-2901'));
  });

  it('lists the categories of one domain', () => {
    assert.deepEqual(
      listCategories('OI-100').map((c) => c.code),
      ['OI-101', 'OI-102', 'OI-103', 'OI-104', 'OI-105', 'OI-106', 'OI-107'],
    );
    assert.deepEqual(listCategories('OI-3000'), []);
    assert.deepEqual(
      listCategories('OI-1100').map((c) => c.name),
      ['Resource Planning', 'Service Execution', 'Completion Management', 'SLA Compliance'],
    );
  });

  it('covers every code the interpreter emits', () => {
    for (const code of ['OI-100', 'OI-101', 'OI-102', 'OI-104', 'OI-105', 'OI-305', 'OI-1800']) {
      assert.ok(isKnownCode(code), code);
    }
  });
});
