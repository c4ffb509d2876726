import t from 'tap';
import fc from 'fast-check';
import { compareVersions, nextMinor, parseVersion } from '../../src/prompts/semver';
import { propertyOptions } from '../support/seeds';

t.test('parses strict MAJOR.MINOR.PATCH', async (t) => {
  t.same(parseVersion('0.0.0'), { major: 0, minor: 0, patch: 0 });
  t.same(parseVersion('1.2.3'), { major: 1, minor: 2, patch: 3 });
  t.same(parseVersion('10.20.300'), { major: 10, minor: 20, patch: 300 });
  t.same(parseVersion('9007199254740991.0.0'), { major: Number.MAX_SAFE_INTEGER, minor: 0, patch: 0 });
});

t.test('rejects malformed versions', async (t) => {
  const malformed = [
    '', '1', '1.2', '1.2.3.4', '1..3', '.1.2', '1.2.',
    '01.2.3', '1.02.3', '1.2.03', '00.0.0',
    '-1.2.3', '1.-2.3', '+1.2.3',
    '1.2.3-beta', '1.2.3-rc.1', '1.2.3+build.5', 'v1.2.3', '=1.2.3', '^1.2.3',
    ' 1.2.3', '1.2.3 ', '1.2.3\n', '1. 2.3',
    '1.2.x', '1.2.*', '1.2.3e0', '1.2.0x1', '1.5.2.5',
    '１.2.3', // fullwidth digit
    '9007199254740992.0.0', // beyond 2^53: would round onto a neighbour
  ];
  for (const text of malformed) t.equal(parseVersion(text), undefined, JSON.stringify(text));
  t.equal(parseVersion(123 as unknown as string), undefined, 'a non-string');
});

t.test('orders numerically, not lexically', async (t) => {
  t.ok(compareVersions('1.10.0', '1.9.0') > 0);
  t.ok(compareVersions('1.9.0', '1.10.0') < 0);
  t.ok(compareVersions('2.0.0', '1.99.99') > 0);
  t.ok(compareVersions('1.2.10', '1.2.9') > 0);
  t.equal(compareVersions('1.2.3', '1.2.3'), 0);
  const shuffled = ['1.10.0', '0.0.1', '1.2.0', '10.0.0', '1.9.9', '0.10.0', '2.0.0', '0.9.0'];
  t.same([...shuffled].sort(compareVersions), ['0.0.1', '0.9.0', '0.10.0', '1.2.0', '1.9.9', '1.10.0', '2.0.0', '10.0.0']);
});

t.test('compareVersions agrees with the numeric tuple order', async (t) => {
  const part = fc.nat({ max: 1_000_000 });
  const version = fc.tuple(part, part, part);
  const agrees = fc.property(version, version, (a, b) => {
    const expected = Math.sign(a[0] - b[0]) || Math.sign(a[1] - b[1]) || Math.sign(a[2] - b[2]);
    const actual = compareVersions(a.join('.'), b.join('.'));
    return actual === expected && compareVersions(b.join('.'), a.join('.')) === -expected;
  });
  // fast-check's default budget (100 runs), split over the seeds.
  for (const options of propertyOptions(100)) t.doesNotThrow(() => fc.assert(agrees, options), `seed ${options.seed}`);
});

t.test('nextMinor bumps the minor and resets the patch', async (t) => {
  t.equal(nextMinor('1.2.3'), '1.3.0');
  t.equal(nextMinor('1.0.0'), '1.1.0');
  t.equal(nextMinor('0.9.7'), '0.10.0');
  t.equal(nextMinor('3.99.0'), '3.100.0');
  t.ok(compareVersions(nextMinor('4.5.6'), '4.5.6') > 0, 'always greater than its input');
});

t.test('compareVersions and nextMinor refuse malformed input', async (t) => {
  t.throws(() => compareVersions('1.2', '1.2.0'), /not a MAJOR\.MINOR\.PATCH version/);
  t.throws(() => compareVersions('1.2.0', 'v1.2.0'), /not a MAJOR\.MINOR\.PATCH version/);
  t.throws(() => nextMinor('1.2.3-beta'), /not a MAJOR\.MINOR\.PATCH version/);
});
