/**
 * Runs one scenario file in this (fresh) process and prints its cases as one
 * JSON line after RESULT_MARKER on stdout (other output passes through):
 * `node --expose-gc dist/bench/child.js <scenario.js> [out.json] [--quick] [--1m] [--run=N]`;
 * with out.json, the same JSON is also written there (for running one
 * scenario by hand).
 */
import { writeFileSync } from 'node:fs';
import type { Scenario } from './scenario';

export const RESULT_MARKER = '@@bench-result ';

async function main(): Promise<void> {
  const [file, ...rest] = process.argv.slice(2);
  const out = rest.find((arg) => !arg.startsWith('--'));
  const { scenario } = require(file) as { scenario: Scenario };
  const run = Number(rest.find((arg) => arg.startsWith('--run='))?.slice('--run='.length) ?? 0);
  const cases = await scenario.run({ quick: rest.includes('--quick'), million: rest.includes('--1m'), run });
  const json = JSON.stringify({ name: scenario.name, description: scenario.description, cases });
  if (out !== undefined) writeFileSync(out, json);
  process.stdout.write(`\n${RESULT_MARKER}${json}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
