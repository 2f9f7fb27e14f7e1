// BFCL Java/JavaScript type converters on adversarial argument strings: each converter entry point on ordinary
// (well-formed) input and on inputs crafted to make the leaderboard's regular expressions backtrack (unclosed
// openings repeated, keys with no colon, a 2-D array that never closes), at 100 KB and 1 MB. Reported as ns per byte
// and as a ratio to the ordinary input of the same entry point and size (goal: within 5x, and flat from 100 KB to
// 1 MB, i.e. linear). Run: npm run build && node bench/bfcl-convert.js. Figures go to BENCHMARKS.md.
import { javaConvert, jsConvert } from '../dist/bfcl/checker/lang-convert.js'

const SIZES = [100_000, 1_000_000]

/** `piece` repeated to about `size` characters, between `head` and `tail`. */
const fill = (size, head, piece, tail = '') => head + piece.repeat(Math.max(1, Math.ceil((size - head.length - tail.length) / piece.length))) + tail

/** Entry point -> { ordinary, crafted: { name -> size -> string } }. */
const CASES = [
  {
    name: 'java ArrayList',
    run: (s) => javaConvert(s, 'ArrayList', 'integer'),
    ordinary: (n) => fill(n, 'new ArrayList<>(Arrays.asList(', '12345, ', '6))'),
    crafted: {
      'unclosed asList repeated': (n) => fill(n, '', 'new ArrayList<>(Arrays.asList(1, '),
      'add block, no }}': (n) => fill(n, 'new ArrayList<>() {{ ', 'add(1; '),
      'add blocks repeated': (n) => fill(n, '', 'new ArrayList<>() {{ x '),
      'type brackets unclosed': (n) => fill(n, '', 'new ArrayList<'),
    },
  },
  {
    name: 'java Array',
    run: (s) => javaConvert(s, 'Array', 'integer'),
    ordinary: (n) => fill(n, 'new int[] {', '12345, ', '6}'),
    crafted: {
      'unclosed openings repeated': (n) => fill(n, '', 'new int[]{1, '),
      'new + spaces, no type': (n) => fill(n, '', 'new    '),
    },
  },
  {
    name: 'java HashMap',
    run: (s) => javaConvert(s, 'HashMap'),
    ordinary: (n) => fill(n, 'new HashMap<String, Integer>() {{ ', 'put("key", 12345); ', '}}'),
    crafted: {
      'type brackets unclosed': (n) => fill(n, '', 'new HashMap<'),
      'put( with no )': (n) => fill(n, 'new HashMap<String, String>() {{ ', 'put("k", "v", ', '}}'),
      'keys with ", but no value end': (n) => fill(n, 'new HashMap<String, String>() {{ put("', '", ', '}}'),
      '>() { repeated, no }': (n) => fill(n, 'new HashMap<', '> () { '),
    },
  },
  {
    name: 'js array',
    run: (s) => jsConvert(s, 'array', 'integer'),
    ordinary: (n) => fill(n, '[', '12345, ', '6]'),
    crafted: {
      '2-D, never closed': (n) => fill(n, '[', '[1], '),
      'new Array 2-D, never closed': (n) => fill(n, 'new Array(', '[1], '),
      'many [ then ]': (n) => fill(n, '[[', '[', ']]'),
    },
  },
  {
    name: 'js array (2-D)',
    run: (s) => jsConvert(s, 'array', 'array'),
    ordinary: (n) => fill(n, '[', '[1, 2], ', '[3]]'),
    crafted: {
      '2-D, never closed': (n) => fill(n, '[', '[1], '),
    },
  },
  {
    name: 'js dict',
    run: (s) => jsConvert(s, 'dict'),
    ordinary: (n) => fill(n, '{', '"key": 12345, ', '"z": 6}'),
    crafted: {
      'no colon': (n) => fill(n, '{', 'a', '}'),
      'commas, no colon after': (n) => fill(n, '{k: ', 'v, ', '}'),
      'colons after spaces': (n) => fill(n, '{', 'k:   , ', '}'),
    },
  },
]

/** Best-of time per call in ms (the least disturbed by other load): repeats until about 500 ms have passed, at least 5 calls. */
function time(run, input) {
  run(input) // warm-up
  let best = Infinity
  let spent = 0
  for (let i = 0; i < 5 || spent < 500; i++) {
    const t0 = process.hrtime.bigint()
    run(input)
    const ms = Number(process.hrtime.bigint() - t0) / 1e6
    best = Math.min(best, ms)
    spent += ms
    if (i > 200) break
  }
  return best
}

const nsPerByte = (ms, s) => +((ms * 1e6) / s.length).toFixed(2)
let worst = 0
for (const c of CASES) {
  for (const size of SIZES) {
    const ordinary = c.ordinary(size)
    const base = nsPerByte(time(c.run, ordinary), ordinary)
    const crafted = {}
    for (const [name, make] of Object.entries(c.crafted)) {
      const s = make(size)
      const ns = nsPerByte(time(c.run, s), s)
      worst = Math.max(worst, ns / base)
      crafted[name] = { ns_per_byte: ns, ratio: +(ns / base).toFixed(2) }
    }
    console.log(JSON.stringify({ bench: 'bfcl-convert', entry: c.name, kb: size / 1000, ordinary_ns_per_byte: base, crafted }))
  }
}
console.log(JSON.stringify({ bench: 'bfcl-convert-worst', worst_ratio: +worst.toFixed(2), goal: 5, node: process.version }))
