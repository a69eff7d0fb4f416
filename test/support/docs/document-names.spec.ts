import { beforeAll, describe, expect, it } from '@jest/globals';
import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { PROBLEMS } from '../../../src/common/problem/problem-catalogue';
import { EnvironmentVariables } from '../../../src/config/environment-variables';
import { execFileSync } from 'node:child_process';
import {
  currentDocuments,
  deadCitations,
  indexRepository,
  overBudget,
  overlongTableRows,
  renamesIn,
  sectionsOf,
  staleNames,
  wordsOf,
  type RepositoryIndex,
} from './document-names';

/** What a newcomer can read through: the figures current only, the structure without its history, short decisions. */
const WORD_BUDGETS: Record<string, number> = { 'docs/BENCHMARKS.md': 3500, 'docs/ARCHITECTURE.md': 2500 };
const WORDS_PER_DECISION = 700;
/** README, CHANGELOG and docs/ together: room for the API's sections (§21 access records and their operation, §22
 * pages by number) and the page's path through the layers (ADR 0027), each document's own budget unchanged. */
const WORDS_IN_ALL = 40_000;

const PROBLEM_TYPES = Object.values(PROBLEMS)
  .map(({ type }) => type)
  .filter((type) => type.startsWith('/problems/'));
/** Every variable the service reads, as its environment class declares them. */
const VARIABLES = [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map(({ propertyName }) => propertyName),
  ),
];

/** The documents name only what exists, and document everything the service reads and answers (docs/API.md §16). */
describe('the documents', () => {
  let index: RepositoryIndex;
  beforeAll(() => {
    index = indexRepository('.', PROBLEM_TYPES);
  });

  it('name only files, scripts, variables, problem types and identifiers that exist', () => {
    const stale = currentDocuments('.').flatMap((document) =>
      staleNames(readFileSync(document, 'utf8'), document, index).map(
        ({ line, name, why }) => `${document}:${line} \`${name}\`: ${why}`,
      ),
    );
    expect(stale).toEqual([]);
  });

  it('find a planted stale name of each kind', () => {
    const planted = [
      'Run `npm run migrate:everything` first.',
      'Set `DB_REPLICA_MAX_DRIFT_S` to 9.',
      'It answers `/problems/replica-sulking`.',
      'See `src/orders/orders.planner.ts` and [the guide](docs/GUIDE.md).',
      'The controller calls `exportFormatOf` through `OrdersService.listEverything`.',
      // Names that exist pass.
      'Run `npm run migration:run` with `DB_REPLICAS`; it may answer `/problems/replicas-behind`.',
      'See `src/orders/orders.service.ts`, [the API](docs/API.md) and `OrdersService.list`.',
    ].join('\n');
    expect(staleNames(planted, 'README.md', index).map(({ line, name }) => `${line} ${name}`)).toEqual([
      '1 npm run migrate:everything',
      '2 DB_REPLICA_MAX_DRIFT_S',
      '3 /problems/replica-sulking',
      '4 src/orders/orders.planner.ts',
      '4 docs/GUIDE.md',
      '5 exportFormatOf',
      '5 OrdersService.listEverything',
    ]);
  });

  it('let a decision record keep a name a later record says was renamed, and nothing else', () => {
    const renames = renamesIn('| before | now |\n|---|---|\n| `ReadPlanner` | `QueryPlanner` |\n| plan | `x` |');
    expect([...renames]).toEqual([['ReadPlanner', 'QueryPlanner']]);
    expect(index.formerNames.has('ReadPlanner')).toBe(true);
    const text = 'The `ReadPlanner` chooses; `SeekPlanner` never existed.';
    expect(staleNames(text, 'docs/adr/0004-the-service-chooses-the-index.md', index).map(({ name }) => name)).toEqual([
      'SeekPlanner',
    ]);
    // A current document names the code as it is.
    expect(staleNames(text, 'docs/ARCHITECTURE.md', index).map(({ name }) => name)).toEqual([
      'ReadPlanner',
      'SeekPlanner',
    ]);
  });

  it('document every variable the service reads and every problem type it answers', () => {
    const reference = readFileSync('docs/API.md', 'utf8');
    const environment = readFileSync('.env.example', 'utf8');
    expect(VARIABLES.filter((name) => !reference.includes(`\`${name}\``))).toEqual([]);
    expect(VARIABLES.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(environment))).toEqual([]);
    expect(PROBLEM_TYPES.filter((type) => !reference.includes(`\`${type}\``))).toEqual([]);
  });

  it('cite in the code only sections of docs/API.md that exist', () => {
    const sections = sectionsOf(readFileSync('docs/API.md', 'utf8'));
    const sources = execFileSync('git', ['ls-files', 'src', 'test', 'bench', 'launchers', 'deploy'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => /\.(ts|mjs)$/.test(file));
    const dead = sources.flatMap((file) =>
      deadCitations(readFileSync(file, 'utf8'), sections).map(({ line, section }) => `${file}:${line} §${section}`),
    );
    expect(dead).toEqual([]);
    // A planted citation of a section that does not exist is found, also in a list of them.
    expect(deadCitations(`// docs/API.md §14\n// docs/API.md §18, §${99}`, sections)).toEqual([
      { line: 2, section: 99 },
    ]);
  });

  it('keep within their word budgets and their table rows readable', () => {
    const documents = ['CHANGELOG.md', ...currentDocuments('.')];
    const texts = Object.fromEntries(documents.map((document) => [document, readFileSync(document, 'utf8')]));
    const decisions = documents.filter((document) => /^docs\/adr\/\d{4}-/.test(document));
    expect(decisions.length).toBeGreaterThan(15);
    const budgets = {
      ...WORD_BUDGETS,
      ...Object.fromEntries(decisions.map((document) => [document, WORDS_PER_DECISION])),
    };
    expect(overBudget(texts, budgets)).toEqual([]);
    expect(wordsOf(Object.values(texts).join('\n'))).toBeLessThanOrEqual(WORDS_IN_ALL);
    // Planted: a document one word over its budget is found.
    expect(overBudget({ 'docs/BENCHMARKS.md': 'word '.repeat(3501) }, WORD_BUDGETS)).toEqual(['docs/BENCHMARKS.md']);
    expect(
      documents.flatMap((document) => overlongTableRows(texts[document]).map(({ line }) => `${document}:${line}`)),
    ).toEqual([]);
    // Planted: a row over the limit is found, its padding and a separator row are not counted.
    const padded = `| ${'word '.repeat(20)}${' '.repeat(900)} |`;
    expect(overlongTableRows(`| a | b |\n|${'-'.repeat(700)}|\n${padded}\n| ${'long '.repeat(130)} |`)).toEqual([
      { line: 4, characters: 653 },
    ]);
    expect(wordsOf('one two\n three')).toBe(3);
  });
});
