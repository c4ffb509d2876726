/**
 * Runs one scenario file in this (fresh) process and writes its cases as
 * JSON to the path given: `node --expose-gc dist/bench/child.js <scenario.js> <out.json> [--quick]`.
 */
import { writeFileSync } from 'node:fs';
import type { Scenario } from './scenario';

async function main(): Promise<void> {
  const [file, out, ...flags] = process.argv.slice(2);
  const { scenario } = require(file) as { scenario: Scenario };
  const cases = await scenario.run({ quick: flags.includes('--quick') });
  writeFileSync(out, JSON.stringify({ name: scenario.name, description: scenario.description, cases }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
