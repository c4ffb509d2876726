/**
 * The operator table (src/engine/operators.ts) is the one home of operator
 * semantics: it has exactly the contract's operators per data type, write-time
 * validation accepts exactly the operands it compiles, and no code elsewhere
 * leans on the numbers of the predicate kinds (their order is no meaning).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { checkConditionGroups, compileCondition, OPERATOR_ROWS, OPERATORS_BY_TYPE, type Condition } from '../../src/engine';

const ROOT = path.resolve(__dirname, '..', '..');

t.test('the table has one row per data type and operator of the contract, and no other', async (t) => {
  const rows = OPERATOR_ROWS.map((r) => `${r.dataType}:${r.operator}`);
  const contract = Object.entries(OPERATORS_BY_TYPE).flatMap(([type, operators]) => operators.map((op) => `${type}:${op}`));
  t.same([...rows].sort(), [...contract].sort());
  t.equal(new Set(rows).size, rows.length, 'each once');
});

t.test('write-time validation accepts exactly the operands the engine compiles', async (t) => {
  const samples = ['', 'abc', '5', ' 7 ', '-0.5', '1e400', '1,2', '10, 20', '5,1', '1,x', '1,2,3', 'true', 'false', 'TRUE', '(a', 'a+', '^[[:alpha:]]$'];
  for (const row of OPERATOR_ROWS) {
    for (const value of samples) {
      const condition: Condition = { field: 'f', operator: row.operator, value, data_type: row.dataType };
      const problems = checkConditionGroups([{ condition_operator: 'AND', conditions: [condition] }]);
      t.equal(problems.length === 0, compileCondition(condition) !== null, `${row.dataType} ${row.operator} ${JSON.stringify(value)}: ${JSON.stringify(problems)}`);
    }
  }
});

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sources(rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
}

t.test('no source orders predicate kinds by number (a kind is a name, not a rank)', async (t) => {
  // `kind <= Kind.REGEX` meant "a text kind" only while the text kinds came first.
  const ordered = /(?<!=)[<>]=?\s*Kind\.[A-Z_]+|Kind\.[A-Z_]+\s*[<>]/;
  const found = sources('src').flatMap((file) =>
    readFileSync(path.join(ROOT, file), 'utf8').split('\n').flatMap((line, i) => (ordered.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));
  t.same(found, []);
});
