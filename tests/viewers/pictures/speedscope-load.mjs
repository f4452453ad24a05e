#!/usr/bin/env node
// speedscope-load.mjs FILE - import a speedscope file into speedscope itself
// (the `speedscope` npm package's app, opened from its dist/release/ in
// headless Chromium the way its own command line does: a script calling
// speedscope.loadFileFromBase64) and print what speedscope shows:
//   imported AS                    the importer's own "Importing as ..." line
//   opened on INDEX                the profile shown first (1-based)
//   profile INDEX WEIGHT_NS NAME   each profile of the profile list, total weight
//   fn INDEX TOTAL_NS ROUND_NS SELF_NS ROUND_NS NAME   the Sandwich view of
//                                  each profile: Total and Self per function,
//                                  parsed from speedscope's 2-decimal text, each
//                                  with its largest rounding error
//   errors N                       page errors, console errors, import failures
// Exit 1 on errors.  Chromium: $CHROMIUM or /usr/bin/chromium.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const file = process.argv[2];
if (!file) { console.error('usage: speedscope-load.mjs FILE'); process.exit(2); }
const out = (line) => process.stdout.write(line + '\n');
const require = createRequire(import.meta.url);
const app = path.join(path.dirname(require.resolve('speedscope/package.json')), 'dist/release/index.html');
const loader = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'speedscope-')), 'load.js');
fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
  `${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);

const units = { ns: 1, 'µs': 1e3, ms: 1e6, s: 1e9 };
function parse(text) { // "11.75ms (51%)" -> [ns, rounding]
  const m = /^([0-9.]+)(ns|µs|ms|s)\b/.exec(text.trim());
  if (!m) return [NaN, 0];
  return [Number(m[1]) * units[m[2]], 0.005 * units[m[2]]];
}

let errors = 0, imported = '';
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 2000 } });
  page.on('pageerror', (e) => { errors++; out(`error ${e.message}`); });
  page.on('console', (m) => {
    const t = m.text();
    if (/^Importing as /.test(t)) imported = t.replace(/^Importing as /, '');
    if (m.type() === 'error') { errors++; out(`error ${t}`); }
  });
  await page.goto('file://' + app + '#localProfilePath=' + loader);
  const anyCounter = page.getByText(/\([0-9]+\/[0-9]+\)$/);
  await anyCounter.waitFor({ timeout: 60000 });
  out(`imported ${imported}`);
  const first = /\(([0-9]+)\/[0-9]+\)$/.exec((await anyCounter.textContent()).trim()) || [];
  out(`opened on ${first[1]}`);
  await page.getByText('Sandwich').click();
  await anyCounter.click();
  const list = await page.$$eval('tr[title]', (rows) => rows.map((r) => [r.title, r.cells[2]?.textContent ?? '']));
  list.forEach(([name, weight], i) => out(`profile ${i} ${parse(weight)[0]} ${JSON.stringify(name)}`));
  // From the first profile on, one after the other.
  await page.locator(`tr[title=${JSON.stringify(list[0][0])}]`).click();
  const counter = page.getByText(/\(1\/[0-9]+\)$/);
  await counter.waitFor();
  for (let i = 0; i < list.length; i++) {
    if (i) {
      await page.getByText(new RegExp(`\\(${i}/${list.length}\\)$`)).click();
      await page.locator(`tr[title=${JSON.stringify(list[i][0])}]`).click();
      await page.getByText(`(${i + 1}/${list.length})`).waitFor();
    }
    const rows = await page.$$eval('table tr', (trs) => trs.filter((r) => r.cells.length === 3 && r.cells[0].tagName === 'TD' && /[0-9]/.test(r.cells[0].textContent) && !r.title)
      .map((r) => [r.cells[0].firstChild.textContent, r.cells[1].firstChild.textContent, r.cells[2].textContent]));
    for (const [total, self, name] of rows) {
      const [t, rt] = parse(total), [s, rs] = parse(self);
      out(`fn ${i} ${t} ${rt} ${s} ${rs} ${JSON.stringify(name)}`);
    }
  }
} catch (e) {
  errors++;
  out(`error ${e.message.split('\n')[0]}`);
} finally {
  await browser.close();
  fs.rmSync(path.dirname(loader), { recursive: true, force: true });
}
if (!imported) { errors++; out('error speedscope did not import the file'); }
out(`errors ${errors}`);
process.exit(errors ? 1 : 0);
