/**
 * docs/configuration.md documents exactly the variables RuleVault reads: every
 * name src/base/config.ts asks the environment for (the service's settings, and the
 * client variables the CLI reads) is in its tables, no name in them is one
 * nothing reads, and every default the page gives as a value is the default
 * the configuration applies (setting the variable to it changes nothing).
 */
import t from 'tap';
import { clientSettings, loadConfig } from '../../src/base/config';
import { codeCell, readDoc, tableRows } from './markdown';

/** The names a reader of the environment asks for, through a proxy that records them. */
function namesRead(read: (env: Record<string, string | undefined>) => unknown): Set<string> {
  const names = new Set<string>();
  read(new Proxy({} as Record<string, string | undefined>, {
    get: (_target, name) => {
      if (typeof name === 'string') names.add(name);
      return undefined;
    },
  }));
  return names;
}

const page = readDoc('docs/configuration.md');
const rows = [...tableRows(page, 'Variables'), ...tableRows(page, 'Client variables')];
const documented = new Map(rows.map(([name, value]) => [codeCell(name ?? '') ?? `not a name: ${name}`, value ?? '']));

t.test('every variable RuleVault reads is documented, and every documented one is read', async (t) => {
  const read = new Set([...namesRead(loadConfig), ...namesRead(clientSettings)]);
  t.ok(read.size > 40, `names read (${read.size})`);
  t.same([...documented.keys()].sort(), [...read].sort(), 'the names documented are the names read');
});

t.test('every default the page states is the one the configuration applies', async (t) => {
  const { unknownVariables: _, ...defaults } = loadConfig({});
  let stated = 0;
  for (const [name, value] of documented) {
    const literal = codeCell(value);
    if (literal === undefined || literal.includes('<') || name === 'RULEVAULT_URL' || name === 'RULEVAULT_API_KEY') continue;
    stated++;
    const { unknownVariables: __, ...set } = loadConfig({ [name]: literal });
    t.strictSame(set, defaults, `${name}=${literal} is the default`);
  }
  t.ok(stated > 35, `defaults checked (${stated})`);
});
