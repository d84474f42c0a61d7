// Adds up the vitest JSON reports of one CI run. Names every failed test (and every file that
// failed outside a test, e.g. in a hook) with the first lines of its message, so the end of the
// log says what broke, and names every test that passed only on its second try (CI allows one
// retry, vitest.config.ts), so a flaky test stays visible; the last line is "N passed, N failed".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
const failures = [];
const flaky = [];
for (const file of readdirSync(dir).sort()) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  let fileFailed = report.numFailedTests;
  for (const suite of report.testResults ?? []) {
    const tests = suite.assertionResults ?? [];
    for (const t of tests) {
      const where = `${file}: ${suite.name} > ${t.fullName}`;
      if (t.status === 'failed') failures.push({ where, message: t.failureMessages?.join('\n') ?? '' });
      // a passed test keeps the errors of the tries that failed
      else if (t.status === 'passed' && t.failureMessages?.length) flaky.push({ where, message: t.failureMessages.join('\n') });
    }
    // A file that failed before or around its tests (import error, hook) has no failed test to show.
    if (suite.status === 'failed' && !tests.some((t) => t.status === 'failed')) {
      failures.push({ where: `${file}: ${suite.name} (the file itself)`, message: suite.message ?? '' });
      fileFailed += 1;
    }
  }
  passed += report.numPassedTests;
  failed += fileFailed;
  console.log(`${file}: ${report.numPassedTests} passed, ${fileFailed} failed`);
}
const show = (label, f) => {
  console.log(`\n${label} ${f.where}`);
  const lines = f.message.replace(/\u001b\[[0-9;]*m/g, '').split('\n').filter((l) => l.trim() !== '');
  console.log(lines.slice(0, 12).map((l) => `  ${l}`).join('\n'));
};
for (const f of flaky) show('PASSED ON A SECOND TRY', f);
for (const f of failures) show('FAILED', f);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
