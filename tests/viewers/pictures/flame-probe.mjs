#!/usr/bin/env node
// flame-probe.mjs HTML PNG [NAME...] - open an `inclprof export --format html`
// page in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core), act as a person would and print what the page showed:
//   ready MS                      first drawing done, ms after navigation start
//   readycpu S                    CPU seconds the renderers used from navigation to
//                                 that drawing (not stretched by a busy machine's waits)
//   requests N                    requests other than the page itself (must be 0)
//   errors N                      page errors and console errors
//   view INDEX FRAMES DRAWN NAME  per entry of the view switch: call paths, frames drawn
//   values NAME...                the entries of the value switch
//   tip NAME calls N              hovering NAME's widest frame in the first view:
//   tipcol NAME COLUMN INCL EXCL INCLPCT EXCLPCT   the tooltip's row per column
//   tipline NAME SAMPLES LINE     the tooltip's hottest lines (sampled traces)
//   zoom NAME WIDTH PAGEWIDTH     after clicking NAME: its frame's width and the canvas'
//   search REGEX TEXT             the info line after typing REGEX in the search box
// and saves a screenshot of the first view to PNG, and one with the tooltip
// of the first NAME shown to PNG's name with -tip.png.  Exit 1 on errors.
import { chromium } from 'playwright-core';

const [file, png, ...names] = process.argv.slice(2);
if (!file || !png) { console.error('usage: flame-probe.mjs HTML PNG [NAME...]'); process.exit(2); }
const out = (line) => process.stdout.write(line + '\n');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
let errors = 0, requests = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
  page.on('pageerror', (e) => { errors++; out(`error ${e.message}`); });
  page.on('console', (m) => { if (m.type() === 'error') { errors++; out(`error ${m.text()}`); } });
  const url = new URL('file://' + (file.startsWith('/') ? file : process.cwd() + '/' + file)).href;
  page.on('request', (r) => { if (r.url() !== url) { requests++; out(`request ${r.url()}`); } });
  const cdp = await browser.newBrowserCDPSession();
  const rendererCpu = async () => new Map((await cdp.send('SystemInfo.getProcessInfo')).processInfo
    .filter((p) => p.type === 'renderer').map((p) => [p.id, p.cpuTime]));
  const cpu0 = await rendererCpu();
  await page.goto(url);
  await page.waitForSelector('body[data-ready-ms]', { timeout: 60000 });
  const cpu1 = await rendererCpu();
  out(`ready ${await page.getAttribute('body', 'data-ready-ms')}`);
  let used = 0;
  for (const [id, t] of cpu1) used += t - (cpu0.get(id) || 0);
  out(`readycpu ${used.toFixed(2)}`);
  const views = await page.$$eval('#tree option', (o) => o.map((x) => [x.value, x.textContent]));
  for (const [value, name] of views) {
    await page.selectOption('#tree', value);
    const f = await page.getAttribute('#info', 'data-frames');
    const d = await page.getAttribute('#info', 'data-drawn');
    out(`view ${value} ${f} ${d} ${JSON.stringify(name)}`);
  }
  await page.selectOption('#tree', views[0][0]);
  out(`values ${(await page.$$eval('#value option', (o) => o.map((x) => x.textContent))).join(' ')}`);
  await page.screenshot({ path: png });
  for (const name of names) {
    const frames = await page.evaluate((n) => window.inclprofFlame.frames(n), name);
    if (!frames.length) { out(`tip ${name} none`); continue; }
    const f = frames.reduce((a, b) => (b.w > a.w ? b : a));
    await page.mouse.move(f.x + f.w / 2, f.y + f.h / 2);
    await page.waitForSelector('#tip[style*="block"]');
    out(`tip ${name} calls ${await page.getAttribute('#tip [data-calls]', 'data-calls')}`);
    for (const r of await page.$$eval('#tip tr[data-col]', (rows) => rows.map((t) => [t.dataset.col,
      t.dataset.incl, t.dataset.excl, t.dataset.inclPct, t.dataset.exclPct])))
      out(`tipcol ${name} ${r.join(' ')}`);
    for (const [line, samples] of await page.$$eval('#tip tr[data-line]', (rows) =>
      rows.map((t) => [t.dataset.line, t.dataset.samples])))
      out(`tipline ${name} ${samples} ${line}`);
    if (name === names[0])
      await page.screenshot({ path: png.replace(/(\.png)?$/, '-tip.png'), clip: { x: 0, y: 0, width: 1200, height: 420 } });
  }
  if (names.length) {
    const name = names[0];
    const f = (await page.evaluate((n) => window.inclprofFlame.frames(n), name))[0];
    await page.mouse.click(f.x + f.w / 2, f.y + f.h / 2);
    const z = (await page.evaluate((n) => window.inclprofFlame.frames(n), name))[0];
    const width = await page.$eval('#flame', (c) => c.getBoundingClientRect().width);
    out(`zoom ${name} ${Math.round(z.w)} ${Math.round(width)}`);
    await page.click('#reset');
    await page.fill('#search', name);
    out(`search ${name} ${await page.textContent('#info')}`);
  }
} finally {
  await browser.close();
}
out(`requests ${requests}`);
out(`errors ${errors}`);
process.exit(errors || requests ? 1 : 0);
