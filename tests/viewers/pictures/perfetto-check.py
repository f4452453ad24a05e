#!/usr/bin/env python3
"""perfetto-check.py - read `protoc --decode=perfetto.protos.Trace` text of an
`inclprof export --format perfetto` trace (stdin) and check its structure the
way Perfetto's trace processor reads it:
  - every TrackEvent packet names a sequence whose first packet cleared the
    incremental state (SEQ_INCREMENTAL_STATE_CLEARED), set the defaults (a
    track with a thread descriptor, the incremental clock) and started that
    clock with a clock snapshot; later packets say SEQ_NEEDS_INCREMENTAL_STATE;
  - every name_iid was interned (InternedData.event_names) before its use;
  - on every track, every SLICE_BEGIN is matched by a SLICE_END and times
    (sums of the deltas) never go back.
Prints one line per problem ("problem ..."), then per function summed over the
threads as the CSV export counts it:
  fn NAME<TAB>CALLS<TAB>ELAPSED_INCL<TAB>ELAPSED_EXCL<TAB>APP_INCL
(inclusive: calls with no enclosing call of the same function), the
distinct call paths (stacks of names) per thread and over all threads:
  paths TID N
  paths all N
and last: slices N tracks N problems N.  Exit 1 when there are problems."""
import re
import sys


def parse(lines):
    """protoc's text format -> nested dicts of lists."""
    root, stack = {}, []
    cur = root
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == '}':
            cur = stack.pop()
        elif line.endswith('{'):
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
        else:
            key, _, value = line.partition(': ')
            if value.startswith('"'):
                value = bytes(value[1:-1], 'latin-1').decode('unicode_escape').encode('latin-1').decode('utf-8', 'replace')
            cur.setdefault(key, []).append(value)
    return root


def one(d, key, default=None):
    v = d.get(key)
    return v[0] if v else default


def main():
    trace = parse(sys.stdin)
    problems = []
    tracks = {}      # uuid -> tid
    seqs = {}        # sequence id -> state
    open_slices = {}  # track -> stack of [name, start, app, child_ns]
    fns = {}         # name -> [calls, incl, excl, app]
    paths = {}       # track -> set of name stacks
    slices = 0
    for i, p in enumerate(trace.get('packet', [])):
        seq = int(one(p, 'trusted_packet_sequence_id', 0))
        td = one(p, 'track_descriptor')
        if td:
            th = one(td, 'thread')
            if th:
                tracks[int(one(td, 'uuid'))] = int(one(th, 'tid'))
            continue
        flags = int(one(p, 'sequence_flags', 0))
        if flags & 1:
            d = one(p, 'trace_packet_defaults', {})
            clocks = {int(one(c, 'clock_id')): c for c in one(p, 'clock_snapshot', {}).get('clocks', [])}
            inc = int(one(d, 'timestamp_clock_id', 0))
            if inc not in clocks or one(clocks[inc], 'is_incremental') != 'true':
                problems.append(f'packet {i}: sequence {seq} starts no incremental clock {inc}')
            seqs[seq] = {'track': int(one(one(d, 'track_event_defaults', {}), 'track_uuid', 0)),
                         'ts': int(one(clocks.get(inc, {}), 'timestamp', 0)), 'names': {}}
            if seqs[seq]['track'] not in tracks:
                problems.append(f'packet {i}: sequence {seq}: default track is not a thread track')
        st = seqs.get(seq)
        if st is None:
            problems.append(f'packet {i}: sequence {seq} used before its state was cleared')
            continue
        if not flags & 2 and not flags & 1:
            problems.append(f'packet {i}: no SEQ_NEEDS_INCREMENTAL_STATE')
        for n in one(p, 'interned_data', {}).get('event_names', []):
            st['names'][one(n, 'iid')] = one(n, 'name')
        ev = one(p, 'track_event')
        if ev is None:
            continue
        st['ts'] += int(one(p, 'timestamp', 0))
        ts, track = st['ts'], int(one(ev, 'track_uuid', st['track']))
        stack = open_slices.setdefault(track, [])
        kind = one(ev, 'type')
        if kind == 'TYPE_SLICE_BEGIN':
            iid = one(ev, 'name_iid')
            if iid not in st['names']:
                problems.append(f'packet {i}: name_iid {iid} not interned on sequence {seq}')
            rest = 0  # transitional_ns: Elapsed - Application, absent when 0
            for a in ev.get('debug_annotations', []):
                rest = int(one(a, 'uint_value', 0))
            stack.append([st['names'].get(iid, '?'), ts, rest, 0])
            paths.setdefault(track, set()).add(tuple(s[0] for s in stack))
        elif kind == 'TYPE_SLICE_END':
            if not stack:
                problems.append(f'packet {i}: SLICE_END without a begin on track {track}')
                continue
            name, start, rest, child = stack.pop()
            if ts < start:
                problems.append(f'packet {i}: time goes back on track {track}')
            dur = ts - start
            app = dur - rest
            slices += 1
            f = fns.setdefault(name, [0, 0, 0, 0])
            f[0] += 1
            f[2] += dur - child
            if all(s[0] != name for s in stack):
                f[1] += dur
                f[3] += app
            if stack:
                stack[-1][3] += dur
        else:
            problems.append(f'packet {i}: unexpected track event type {kind}')
    for track, stack in open_slices.items():
        if stack:
            problems.append(f'track {track}: {len(stack)} slices never end')
    for p in problems[:20]:
        print('problem', p)
    for name, (calls, incl, excl, app) in sorted(fns.items()):
        print(f'fn {name}\t{calls}\t{incl}\t{excl}\t{app}')
    for track, p in sorted(paths.items()):
        print(f'paths {tracks.get(track, "?")} {len(p)}')
    print(f'paths all {len(set().union(*paths.values())) if paths else 0}')
    print(f'slices {slices} tracks {len(tracks)} problems {len(problems)}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
