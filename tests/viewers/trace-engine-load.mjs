#!/usr/bin/env node
// trace-engine-load.mjs FILE - load a Chrome trace JSON file with the Chrome
// DevTools Performance panel's trace engine (@paulirish/trace_engine, as
// installed by setup.sh next to this script) and print what it made of it:
//   threads N slices N errors N
//   thread PID TID SLICES NAME          (one line per thread, NAME as JSON)
//   name PID TID JSON                   (each distinct slice name per thread)
//   args JSON ARG SUM                   (per slice name over every thread: the
//                                        sum of each numeric arg of its slices)
// Every console error or warning the engine prints is counted and shown as
//   error TEXT
// Exit status: 0 loaded without errors, 1 rejected or errors, 2 usage.
// Runs on Node 18 (Debian 12's nodejs) and newer.
import fs from 'node:fs';

// The engine calls URL.parse, which Node has from 20.18 / 22.1 on; before
// that, the standard's definition: the parsed URL, or null when it is invalid.
if (typeof URL.parse !== 'function')
  URL.parse = (url, base) => { try { return new URL(url, base); } catch { return null; } };
// Imported after the line above (static imports would run first).
await import('@paulirish/trace_engine/analyze-trace.mjs'); // installs the DOMRect polyfill the engine needs in Node
const Trace = await import('@paulirish/trace_engine');

const file = process.argv[2];
if (!file) { console.error('usage: trace-engine-load.mjs FILE'); process.exit(2); }
const errors = [];
console.error = (...a) => errors.push(a.join(' '));
console.warn = (...a) => errors.push(a.join(' '));
const out = (line) => process.stdout.write(line + '\n');
const reject = (why) => { out(`rejected ${why}`); for (const e of errors) out(`error ${e}`); process.exit(1); };

let json;
try { json = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { reject('not JSON: ' + e.message); }
const events = Array.isArray(json) ? json : json.traceEvents;
if (!Array.isArray(events)) reject('no traceEvents array');
const model = Trace.TraceModel.Model.createWithAllHandlers();
try { await model.parse(events); } catch (e) { reject('engine threw: ' + e.message); }
const data = model.parsedTrace().data;
const threads = [];
for (const [pid, p] of data.Renderer.processes)
  for (const [tid, t] of p.threads) threads.push({ pid, tid, name: t.name ?? '', entries: t.entries });
let slices = 0, nonFinite = 0;
for (const t of threads) {
  slices += t.entries.length;
  nonFinite += t.entries.filter(e => !Number.isFinite(e.ts) || !Number.isFinite(e.dur ?? 0)).length;
}
if (nonFinite) errors.push(`${nonFinite} slices with non-finite times`);
out(`threads ${threads.length} slices ${slices} errors ${errors.length}`);
for (const t of threads) out(`thread ${t.pid} ${t.tid} ${t.entries.length} ${JSON.stringify(t.name)}`);
for (const t of threads)
  for (const n of new Set(t.entries.map(e => e.name))) out(`name ${t.pid} ${t.tid} ${JSON.stringify(n)}`);
const sums = new Map();
for (const t of threads)
  for (const e of t.entries)
    for (const [k, v] of Object.entries(e.args ?? {}))
      if (typeof v === 'number') {
        const key = `${JSON.stringify(e.name)} ${k}`;
        sums.set(key, (sums.get(key) ?? 0) + v);
      }
for (const [key, sum] of sums) out(`args ${key} ${sum}`);
for (const e of errors) out(`error ${e}`);
process.exit(errors.length ? 1 : 0);
