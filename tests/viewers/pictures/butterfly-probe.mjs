#!/usr/bin/env node
// butterfly-probe.mjs HTML PNG FN [NAME...] - open an `inclprof export
// --format html` page in headless Chromium (playwright-core driving
// /usr/bin/chromium), click the widest frame of FN in the merged view as a
// person would and print what the butterfly pane beside the graph shows,
// then fold the uninstrumented modules and print it again:
//   fn NAME CALLS INCL EXCL          the pane's function (Elapsed, or $PROBE_VALUE's column)
//   caller NAME CALLS INCL           one row per caller, as the pane lists them
//   callee NAME CALLS INCL           one row per callee
//   picked NAME                      the pane's function after a click on its first callee row
//   paths NAME N                     call paths of the view that end in each NAME
// every line of the second round prefixed "fold ".  Saves a screenshot
// with the pane to PNG and one of the folded view to PNG's name with
// -fold.png.  Exit 1 on page errors or requests beyond the file.
import { chromium } from 'playwright-core';

const [file, png, fn, ...names] = process.argv.slice(2);
const value = process.env.PROBE_VALUE;
if (!file || !png || !fn) { console.error('usage: butterfly-probe.mjs HTML PNG FN [NAME...]'); process.exit(2); }
const out = (line) => process.stdout.write(line + '\n');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
let errors = 0, requests = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 420 } });
  page.on('pageerror', (e) => { errors++; out(`error ${e.message}`); });
  page.on('console', (m) => { if (m.type() === 'error') { errors++; out(`error ${m.text()}`); } });
  const url = new URL('file://' + (file.startsWith('/') ? file : process.cwd() + '/' + file)).href;
  page.on('request', (r) => { if (r.url() !== url) { requests++; out(`request ${r.url()}`); } });
  await page.goto(url);
  await page.waitForSelector('body[data-ready-ms]', { timeout: 60000 });
  if (value) await page.selectOption('#value', { label: value });
  const pane = async (prefix) => {
    const b = await page.evaluate(() => window.inclprofFlame.butterfly());
    if (!b) { out(`${prefix}fn none`); return; }
    out(`${prefix}fn ${b.name} ${b.calls} ${b.incl} ${b.excl}`);
    // what the pane's rows say, read from the page as shown
    for (const part of ['callers', 'callees'])
      for (const r of await page.$$eval(`#butterfly table[data-part=${part}] tr.pick`, (rows) =>
        rows.map((t) => [t.dataset.name, t.dataset.calls, t.dataset.incl])))
        out(`${prefix}${part.slice(0, -1)} ${r.join(' ')}`);
  };
  const frames = async (prefix) => {
    for (const n of names)
      out(`${prefix}paths ${n} ${(await page.evaluate((x) => window.inclprofFlame.paths(x), n))}`);
  };
  // the page down to the foot of the graph or the pane, whichever is lower
  const shot = async (path) => {
    const h = await page.evaluate(() => Math.ceil(Math.max(document.getElementById('flame').getBoundingClientRect().bottom,
      document.getElementById('butterfly').getBoundingClientRect().bottom) + 8));
    await page.screenshot({ path, clip: { x: 0, y: 0, width: 1300, height: Math.min(h, 420) } });
  };
  const widest = async (name) => {
    const f = await page.evaluate((n) => window.inclprofFlame.frames(n), name);
    return f.length ? f.reduce((a, b) => (b.w > a.w ? b : a)) : null;
  };
  const f = await widest(fn);
  if (!f) { out(`fn ${fn} not drawn`); errors++; }
  else {
    await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
    await page.click('#reset'); // the whole graph beside the pane in the picture
    await pane('');
    await shot(png);
    const first = await page.$('#butterfly table[data-part=callees] tr.pick');
    if (first) {
      await first.click();
      out(`picked ${(await page.evaluate(() => window.inclprofFlame.butterfly())).name}`);
      // FN's frame again (a select by name takes the first function of that
      // name, which may be another executable's)
      await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
      await page.click('#reset');
    }
    await frames('');
    await page.check('#fold');
    await pane('fold ');
    await frames('fold ');
    await shot(png.replace(/(\.png)?$/, '-fold.png'));
  }
} finally {
  await browser.close();
}
out(`requests ${requests}`);
out(`errors ${errors}`);
process.exit(errors || requests ? 1 : 0);
