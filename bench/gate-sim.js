// The baseline gate simulated end to end (issue 20): seeded projects whose samples are right with their own
// probability, two runs drawn per repetition (base, and head with or without a drop), compared by the same
// compareRuns that `tool-evals compare` runs. Prints, per scenario, the false-alarm rate (no drop) or the power (a
// drop of d points on args_exact_match, the rate every NeMo miss lowers), for the default gate and for one gated
// metric, beside the power of one unadjusted one-sided test at α = 0.05 on the dropped metric (exact McNemar, or the
// cluster-level test where dialogues exist) and the share of runs that print an "inconclusive" warning.
// Statistical properties, not speed: nothing here is timed, nothing passes or fails. Figures go to BENCHMARKS.md.
//
//   node bench/gate-sim.js                      (after npm run build; GATE_SIM_REPS=0.1 for a tenth of the runs)
//   GATE_SIM_DIST=/path/to/old/dist node bench/gate-sim.js   (the same seeds through another build: before/after)
//   GATE_SIM_PLAN=1 node bench/gate-sim.js      (check mode: `tool-evals plan`'s power and MDE against the gate's;
//                                                GATE_SIM_PLAN=lines: only the baselines with one line per trial,
//                                                GATE_SIM_PLAN_SEEDS=40 baselines per project (default 8),
//                                                GATE_SIM_PLAN_TRIALS=20 trials in each (default 3),
//                                                GATE_SIM_PLAN_ONLY=dialogues the projects whose name has that text)
//   GATE_SIM_GRAPH=0.25,0.5                     (with designs: also a graphical procedure giving the suites ε of
//                                                each metric's α from the start, decided on the same p-values)
//   GATE_SIM_ONLY=suites                        (with GATE_SIM_SET=designs: the designs whose name has that text)
//   GATE_SIM_SET=designs node bench/gate-sim.js (the designs below `designs()`: Beta difficulty, failure kinds drawn
//                                                afresh, one metric or two in opposite directions, unbalanced
//                                                dialogues, suites, trials 5, tiny and large projects; after the old
//                                                scenarios unless GATE_SIM_SET=designs; GATE_SIM_REPS=0.1 is quick)
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'

const dist = process.env.GATE_SIM_DIST ? pathToFileURL(resolve(process.env.GATE_SIM_DIST)).href : new URL('../dist/', import.meta.url).href
const { compareRuns } = await import(`${dist.replace(/\/?$/, '/')}reporter/compare/compare.js`)
// The reference test always comes from this checkout's build (the clustered tests are new here).
const ref = await import(new URL('../dist/reporter/compare/compare.js', import.meta.url).href)
const SCALE = Number(process.env.GATE_SIM_REPS ?? 1)
const NULL_REPS = Math.max(20, Math.round(2000 * SCALE))
const DROP_REPS = Math.max(20, Math.round(1000 * SCALE))
// GATE_SIM_GRAPH=0.1,0.25: the graphical procedures (graphFails) beside the gate in the designs' table.
const GRAPH_EPS = (process.env.GATE_SIM_GRAPH ?? '').split(',').filter(Boolean).map(Number)
const graphCells = (s) => s.graph.map((g) => ` ${(g * 100).toFixed(1)}% |`).join('')
const DROPPED = 'args_exact_match'
const ONE = ['name_correct']

/** mulberry32: small, seeded, good enough for simulation. */
function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A sample's (or dialogue's) chance of being right: 40% flaky, p ~ U(0.2, 0.8); else always right (85%) or wrong. */
function drawP(r, flaky = 0.4) {
  if (r() < flaky) return 0.2 + 0.6 * r()
  return r() < 0.85 ? 1 : 0
}

/**
 * A project: units (single samples, or dialogues of 3-8 turns) with p, a failure mode when wrong (wrong name, or
 * wrong arguments), and 10% of single samples that expect no call.
 */
function makeProject(seed, { singles = 0, dialogues = 0, flaky = 0.4 }) {
  const r = rng(seed)
  const units = []
  for (let i = 0; i < singles; i++) units.push({ id: `s${i}`, turns: 1, p: drawP(r, flaky), noCall: r() < 0.1, mode: r() < 0.4 ? 'name' : 'args' })
  for (let g = 0; g < dialogues; g++) {
    const p = drawP(r, flaky)
    const turns = 3 + Math.floor(r() * 6)
    units.push({ id: `d${g}`, turns, p, noCall: false, mode: r() < 0.4 ? 'name' : 'args' })
  }
  return projectFrom(units)
}

function projectFrom(units) {
  const callUnits = units.filter((u) => !u.noCall)
  const meanP = callUnits.reduce((a, u) => a + u.p * u.turns, 0) / callUnits.reduce((a, u) => a + u.turns, 0)
  return { units, meanP }
}

/** `count` units cycled from the project's (copies keep p, turns and kind under new ids): a project drawn like it. */
function replicateUnits(units, count) {
  return Array.from({ length: count }, (_, i) => {
    const u = units[i % units.length]
    return { ...u, id: `${u.id}r${Math.floor(i / units.length)}` }
  })
}

function values(u, right) {
  if (u.noCall) return { no_call_accuracy: right }
  if (right === 1) return { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 1, args_field_recall: 1, args_exact_match: 1 }
  if (u.mode === 'name') return { has_call: 1, name_correct: 0, args_json_valid: 1, args_field_precision: 0, args_field_recall: 0, args_exact_match: 0 }
  return { has_call: 1, name_correct: 1, args_json_valid: 1, args_field_precision: 0.5, args_field_recall: 0.5, args_exact_match: 0 }
}

/** Reduce k trials' values metric by metric, as `trials` does (mean, all = min, any = max). */
function reduce(list, reducer) {
  const out = {}
  for (const m of Object.keys(list[0])) {
    const xs = list.map((v) => v[m])
    out[m] = reducer === 'all' ? Math.min(...xs) : reducer === 'any' ? Math.max(...xs) : xs.reduce((a, b) => a + b, 0) / xs.length
  }
  return out
}

/**
 * One run's outcomes. `drop` lowers every call-expecting unit's p by the same factor, so the expected rate falls by
 * `drop`. Within a dialogue, each turn takes the dialogue's shared draw with probability ρ, else its own.
 */
function drawRun(project, r, { drop = 0, rho = 0, trials = 1, reducer = 'mean' }) {
  const out = []
  const factor = 1 - drop / project.meanP
  for (const u of project.units) {
    const p = u.noCall ? u.p : u.p * factor
    const trialValues = Array.from({ length: u.turns }, () => [])
    for (let t = 0; t < trials; t++) {
      const shared = r()
      for (let k = 0; k < u.turns; k++) trialValues[k].push(values(u, (r() < rho ? shared : r()) < p ? 1 : 0))
    }
    for (let k = 0; k < u.turns; k++) {
      const v = trials === 1 ? trialValues[k][0] : reduce(trialValues[k], reducer)
      const right = Object.values(v).every((x) => x === 1)
      out.push({ suite: 'suite', id: u.turns === 1 ? u.id : `${u.id}#${k + 1}`, values: v, failures: right ? [] : ['wrong'] })
    }
  }
  return out
}

const warned = (c) => [c.metrics, ...Object.values(c.suites).map((s) => s.metrics)].some((ms) => Object.values(ms).some((m) => m.gated && m.verdict === 'inconclusive'))

function simulate(name, projectSpec, runSpec, drop, reps, seed) {
  const project = makeProject(seed, projectSpec)
  const r = rng(seed * 7919 + 1)
  let alarms = 0
  let oneAlarms = 0
  let refRejects = 0
  let warnings = 0
  const mdes = []
  for (let i = 0; i < reps; i++) {
    const base = drawRun(project, r, runSpec)
    const head = drawRun(project, r, { ...runSpec, drop })
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    if (!c.pass) alarms++
    if (warned(c)) warnings++
    const m = c.metrics[DROPPED]
    if (m && m.mde !== null && m.mde !== undefined) mdes.push(m.mde)
    if (!compareRuns({ outcomes: base }, { outcomes: head }, { metrics: ONE }).pass) oneAlarms++
    // This build's default comparison already holds the unadjusted test of the dropped metric.
    const single = (process.env.GATE_SIM_DIST ? ref.compareRuns({ outcomes: base }, { outcomes: head }, { metrics: [DROPPED] }) : c).metrics[DROPPED]
    if (single && single.delta < 0 && single.pValue <= 0.05) refRejects++
  }
  mdes.sort((a, b) => a - b)
  return { name, drop, reps, gate: alarms / reps, one: oneAlarms / reps, ref: refRejects / reps, warn: warnings / reps, mde: mdes.length ? mdes[Math.floor(mdes.length / 2)] : null }
}

const rows = []
const show = (s) => {
  rows.push(s)
  const ratio = s.drop > 0 && s.ref > 0 ? (s.gate / s.ref).toFixed(2) : ''
  console.log(`| ${s.name} | ${s.drop > 0 ? (s.drop * 100).toFixed(1) : 'none'} | ${s.reps} | ${pct(s.gate)} | ${pct(s.one)} | ${pct(s.ref)} | ${ratio} | ${pct(s.warn)} | ${s.mde === null ? '–' : (s.mde * 100).toFixed(1)} |`)
}

/**
 * Check mode: for each project, `planGate` (what `tool-evals plan` prints) from one baseline run with 3 trials,
 * planned at k trials; then the gate simulated at that size and k, at the drops the plan gives power for and at its
 * MDE. The planned and simulated powers should agree (within the Monte Carlo error and the plan's approximations).
 */
async function planCheck() {
  const { planGate } = await import(`${dist.replace(/\/?$/, '/')}reporter/compare/plan.js`)
  console.log(`gate-sim plan check: ${dist}`)
  console.log('| project | planned trials | family (of all units) | drop (pts) | planned power | planned, every unit in the family | simulated power | runs |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  const projects = [
    ['200 single-turn, 40% flaky', { singles: 200 }],
    ['200 single-turn, none flaky', { singles: 200, flaky: 0 }],
    ['40 single-turn, none flaky', { singles: 40, flaky: 0 }],
    ['40 single-turn, 40% flaky', { singles: 40 }],
  ]
  let seed = 501
  // GATE_SIM_PLAN=lines: only the baselines with one line per trial below.
  for (const [name, spec] of process.env.GATE_SIM_PLAN === 'lines' ? [] : projects) {
    for (const trials of [1, 3]) {
      const project = makeProject(seed, spec)
      const baseline = drawRun(project, rng(seed * 31 + trials), { trials: 3 })
      const plan = planGate(baseline, { count: 3 }, { trials, mde: 0.05 })
      // The plan holds each test to α over the units expected to be able to reject (the gate's Tarone rule); beside
      // it, the same plan with every unit in the family (what it assumed before), for comparison.
      const drops = [0.05, 0.1]
      if (plan.mdeNow !== null) drops.push(plan.mdeNow)
      const power = (p, drop) => planGate(baseline, { count: 3 }, { trials, mde: drop, ...p }).powerAt.find((x) => x.drop === drop).power
      for (const drop of drops) {
        const s = simulate(name, spec, { trials, reducer: 'mean' }, drop, DROP_REPS, seed)
        const mde = drop === plan.mdeNow ? ' (its MDE)' : ''
        console.log(`| ${name} | ${trials} | ${plan.family} (${plan.familyMax}) | ${(drop * 100).toFixed(1)}${mde} | ${pct(power({}, drop))} | ${pct(power({ alpha: (0.05 * plan.family) / plan.familyMax }, drop))} | ${pct(s.gate)} | ${s.reps} |`)
      }
      seed++
    }
  }
  await planLines(planGate)
}

/**
 * The planner on baselines with one line per trial (3 trials), gated with 1 trial, over several baselines per kind
 * of project (the plan's estimate is itself random: the goal is about what it states on average). Per baseline:
 * the gate's power at the plan's stated MDE on that project, and at the plan's stated size for 5 points on a project
 * of that many units drawn like the baseline's (its units cycled: same p, turns and kind), the size the plan
 * extrapolates to. Fresh units from the same distribution would add the luck of the baseline's few dialogues (60
 * drawn afresh vary ±30% in their summed variance), which no plan from them can know.
 */
async function planLines(planGate) {
  const seeds = Number(process.env.GATE_SIM_PLAN_SEEDS ?? 8)
  const reps = Math.max(20, Math.round(250 * SCALE))
  // GATE_SIM_PLAN_TRIALS=20: a baseline with that many trials (the plan's estimate then nearly exact).
  const baseTrials = Number(process.env.GATE_SIM_PLAN_TRIALS ?? 3)
  const classic = (spec, runSpec) => ({
    make: (seed) => makeProject(seed, spec),
    scale: (project, count) => projectFrom(replicateUnits(project.units, count)),
    draw: (project, r, drop) => drawRun(project, r, { ...runSpec, drop }),
  })
  const beta = (spec, runSpec) => ({
    make: (seed) => makeDesign(seed, spec),
    scale: (project, count) => designFrom(replicateUnits(project.units, count), project.fixedKinds),
    draw: (project, r, drop) => drawDesignRun(project, r, runSpec, { kind: 'both', d: drop }),
  })
  const kinds = [
    ['30 dialogues of 3-8 turns, ρ 0.5', classic({ dialogues: 30 }, { rho: 0.5 })],
    ['60 dialogues of 3-8 turns, ρ 0.9', classic({ dialogues: 60 }, { rho: 0.9 })],
    ['60 dialogues of 1-25 turns, Beta(0.6,0.4), ρ 0.5', beta({ units: 60, a: 0.6, b: 0.4, dialogues: true }, { rho: 0.5 })],
    ['200 single-turn, 40% flaky', classic({ singles: 200 }, {})],
    ['100 single-turn, Beta(0.6,0.4)', beta({ units: 100, a: 0.6, b: 0.4 }, {})],
  ]
  const only = process.env.GATE_SIM_PLAN_ONLY
  console.log('')
  console.log(`planner, baselines with one line per trial (${baseTrials} trials): ${seeds} baselines per project, ${reps} runs per baseline and row`)
  console.log('| project | design effect (median) | stated MDE (pts, median) | power at the stated MDE | stated n for 5 pts (median) | power at the stated n | runs per row |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  for (const [name, kind] of kinds) {
    if (only && !name.includes(only)) continue
    const atMde = []
    const atN = []
    const effects = []
    const mdes = []
    const ns = []
    for (let i = 0; i < seeds; i++) {
      const seed = 7001 + 97 * i
      const project = kind.make(seed)
      const r = rng(seed * 31)
      const baseline = Array.from({ length: baseTrials }, (_, t) => kind.draw(project, r, 0).map((o) => ({ ...o, trial: t }))).flat()
      const plan = planGate(baseline, { count: baseTrials }, { trials: 1, mde: 0.05 })
      effects.push(plan.designEffect)
      const gate = (proj, drop, s) => {
        const rr = rng(s)
        let fails = 0
        for (let k = 0; k < reps; k++) if (!compareRuns({ outcomes: kind.draw(proj, rr, 0) }, { outcomes: kind.draw(proj, rr, drop) }).pass) fails++
        return fails / reps
      }
      if (plan.mdeNow !== null) {
        mdes.push(plan.mdeNow)
        atMde.push(gate(project, plan.mdeNow, seed + 1))
      }
      if (plan.samplesNeeded !== null) {
        ns.push(plan.samplesNeeded)
        const count = Math.round(project.units.length * (plan.samplesNeeded / plan.samples))
        atN.push(gate(kind.scale(project, count), 0.05, seed + 2))
      }
    }
    // The mean over baselines, ± its standard error (the baselines' spread and the runs' noise together).
    const mean = (xs) => {
      if (!xs.length) return '–'
      const m = xs.reduce((a, b) => a + b, 0) / xs.length
      const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / Math.max(1, xs.length - 1))
      return `${pct(m)} ± ${pct(sd / Math.sqrt(xs.length))}`
    }
    const range = (xs) => (xs.length ? ` (${pct(Math.min(...xs))}–${pct(Math.max(...xs))})` : '')
    console.log(`| ${name} | ${effects[0] === undefined ? "–" : median(effects).toFixed(2)} | ${mdes.length ? (median(mdes) * 100).toFixed(1) : '–'} | ${mean(atMde)}${range(atMde)} | ${ns.length ? median(ns) : '–'} | ${mean(atN)}${range(atN)} | ${reps * seeds} |`)
  }
  console.log(`Monte Carlo standard error of a mean at 80%: ${pct(Math.sqrt((0.8 * 0.2) / (reps * seeds)))} (${reps * seeds} runs over ${seeds} baselines)`)
}
const pct = (x) => `${(x * 100).toFixed(1)}%`
if (process.env.GATE_SIM_PLAN) {
  await planCheck()
  process.exit(0)
}

if (process.env.GATE_SIM_SET === 'designs') {
  await designs()
  process.exit(0)
}

console.log(`gate-sim: ${dist}`)
console.log('| scenario | drop (pts) | runs | default gate fails | name_correct gate fails | one test at α=0.05 | gate / one test | warns | median stated MDE (pts) |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
const single = { singles: 200 }
const nulls = [
  ['200 single-turn', single, {}],
  ['200 single, trials 3 mean', single, { trials: 3, reducer: 'mean' }],
  ['200 single, trials 3 all', single, { trials: 3, reducer: 'all' }],
  ['200 single, trials 3 any', single, { trials: 3, reducer: 'any' }],
]
for (const g of [5, 10, 30]) for (const rho of [0, 0.5, 0.9]) nulls.push([`${g} dialogues, ρ ${rho}`, { dialogues: g }, { rho }])
let seed = 1
const stated = {}
for (const [name, spec, runSpec] of nulls) {
  const s = simulate(name, spec, runSpec, 0, NULL_REPS, seed++)
  stated[name] = s.mde
  show(s)
}
for (const d of [0.03, 0.05, 0.074, 0.1, 0.125, 0.15]) show(simulate('200 single-turn', single, {}, d, DROP_REPS, 101))
for (const d of [0.05, 0.1]) show(simulate('200 single, trials 3 mean', single, { trials: 3, reducer: 'mean' }, d, DROP_REPS, 102))
for (const d of [0.05, 0.1]) show(simulate('30 dialogues, ρ 0.5', { dialogues: 30 }, { rho: 0.5 }, d, DROP_REPS, 103))
// Power at the MDE the report states (the median over the null runs of the same project).
for (const [name, spec, runSpec, s] of [['200 single-turn', single, {}, 1], ['200 single, trials 3 mean', single, { trials: 3, reducer: 'mean' }, 2], ['30 dialogues, ρ 0.5', { dialogues: 30 }, { rho: 0.5 }, 12]]) {
  if (stated[name] == null) continue
  show({ ...simulate(`${name} at its stated MDE`, spec, runSpec, stated[name], DROP_REPS, s), name: `${name} at its stated MDE` })
}
const mc = Math.sqrt(0.05 * 0.95 / NULL_REPS)
console.log(`Monte Carlo standard error at 5%: ${pct(mc)} (${NULL_REPS} runs per null scenario, ${DROP_REPS} per drop)`)

// ---- The model matrix (describeEval's `models`): every model drawn from the same project, compared with the
// reference by the reporter's compareModels (compareRuns per model, Holm over models × gated metrics). On equal
// models, the share of runs where some model is called worse (what `models: { noneWorse: true }` fails on) and
// where some model is called better; with one model dropped by d points, the share that calls it worse.
const { compareModels } = await import(`${dist.replace(/\/?$/, '/')}reporter/matrix.js`)

function simulateMatrix(name, projectSpec, runSpec, modelCount, drop, reps, seed) {
  const project = makeProject(seed, projectSpec)
  const r = rng(seed * 7919 + 5)
  let worse = 0
  let better = 0
  let family = 0
  for (let i = 0; i < reps; i++) {
    const outcomes = new Map()
    for (let k = 0; k < modelCount; k++) outcomes.set(`m${k}`, drawRun(project, r, { ...runSpec, drop: k === modelCount - 1 ? drop : 0 }))
    const c = compareModels(outcomes, 'm0', { alpha: 0.05, minDrop: 0.02 })
    family = c.family
    const verdicts = Object.values(c.comparisons).flatMap((x) => Object.values(x.metrics).filter((m) => m.gated).map((m) => m.verdict))
    if (verdicts.includes('worse')) worse++
    if (verdicts.includes('better')) better++
  }
  return { name, modelCount, drop, reps, family, worse: worse / reps, better: better / reps }
}

console.log('')
console.log('| matrix scenario | models | drop of the last (pts) | runs | family (Holm) | some model called worse | some model called better |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
const showMatrix = (s) => console.log(`| ${s.name} | ${s.modelCount} | ${s.drop > 0 ? (s.drop * 100).toFixed(1) : 'none'} | ${s.reps} | ${s.family} | ${pct(s.worse)} | ${pct(s.better)} |`)
let mseed = 201
for (const [name, spec, runSpec] of [
  ['200 single-turn', single, {}],
  ['200 single, trials 3 mean', single, { trials: 3, reducer: 'mean' }],
  ['30 dialogues, ρ 0.5', { dialogues: 30 }, { rho: 0.5 }],
]) {
  for (const k of [3, 5]) showMatrix(simulateMatrix(name, spec, runSpec, k, 0, NULL_REPS, mseed++))
}
for (const d of [0.05, 0.1]) showMatrix(simulateMatrix('200 single-turn', single, {}, 3, d, DROP_REPS, 301))
console.log(`Monte Carlo standard error at 5%: ${pct(mc)} (${NULL_REPS} runs per equal-models scenario, ${DROP_REPS} per drop)`)
// ---------------------------------------------------------------------------------------------------------------
// Designs the scenarios above lack. A unit (single sample or dialogue) is right in each trial with its own p drawn
// from a Beta distribution (near-deterministic: mass near 0 and 1; flaky: spread). A wrong outcome's kind (a wrong
// name, or the right name with wrong arguments) is fixed per unit or drawn afresh at every generation. A drop is
// one of: `args` (a right outcome loses its arguments: args_exact_match falls, name_correct does not), `both` (p
// falls: both metrics fall), `opposite` (as `args`, and wrong names become right names with wrong arguments:
// name_correct rises by as much). Each is scaled so args_exact_match falls by d points (in `suite`: only there).

/** Gamma(shape) by Marsaglia and Tsang (shape < 1 by the boost U^(1/shape)). */
function gamma(r, shape) {
  if (shape < 1) return gamma(r, shape + 1) * r() ** (1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x
    let v
    do {
      // Box-Muller normal.
      x = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const u = r()
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
  }
}
function beta(r, a, b) {
  const x = gamma(r, a)
  return x / (x + gamma(r, b))
}

/** A project: `suites` suites of `units` units each; a unit is a dialogue of 1-25 turns when `dialogues`. */
function makeDesign(seed, { units, suites = 1, a, b, dialogues = false, fixedKinds = false }) {
  const r = rng(seed)
  const list = []
  for (let s = 0; s < suites; s++) {
    for (let i = 0; i < units; i++) {
      const turns = dialogues ? 1 + Math.floor(r() * 25) : 1
      list.push({ suite: `suite${s}`, id: `u${i}`, turns, p: beta(r, a, b), kind: r() < 0.4 ? 'name' : 'args' })
    }
  }
  return designFrom(list, fixedKinds)
}

function designFrom(list, fixedKinds) {
  const mean = (f, only) => {
    let num = 0
    let den = 0
    for (const u of list) if (only === undefined || u.suite === only) (num += f(u) * u.turns), (den += u.turns)
    return num / den
  }
  return { units: list, fixedKinds, mean }
}

function drawDesignRun(project, r, { trials = 1, reducer = 'mean', rho = 0.5 }, drop) {
  const out = []
  const kindName = (u) => (project.fixedKinds ? (u.kind === 'name' ? 1 : 0) : 0.4)
  const scope = drop.suite
  const meanP = project.mean((u) => u.p, scope)
  const wrongName = project.mean((u) => (1 - u.p) * kindName(u), scope)
  const lose = drop.d > 0 && drop.kind !== 'both' ? drop.d / meanP : 0
  const factor = drop.d > 0 && drop.kind === 'both' ? 1 - drop.d / meanP : 1
  const rename = drop.d > 0 && drop.kind === 'opposite' ? Math.min(1, drop.d / wrongName) : 0
  for (const u of project.units) {
    const hit = scope === undefined || u.suite === scope
    const p = hit ? u.p * factor : u.p
    const perTurn = Array.from({ length: u.turns }, () => [])
    for (let t = 0; t < trials; t++) {
      const shared = r()
      for (let k = 0; k < u.turns; k++) {
        const right = (r() < rho ? shared : r()) < p
        let name = 1
        let args = 1
        if (!right) {
          const isName = project.fixedKinds ? u.kind === 'name' : r() < 0.4
          name = isName ? 0 : 1
          args = 0
          if (isName && hit && rename > 0 && r() < rename) name = 1
        } else if (hit && lose > 0 && r() < lose) args = 0
        perTurn[k].push({ has_call: 1, name_correct: name, args_exact_match: args, args_field_recall: args === 1 ? 1 : name === 1 ? 0.5 : 0 })
      }
    }
    for (let k = 0; k < u.turns; k++) {
      const v = trials === 1 ? perTurn[k][0] : reduce(perTurn[k], reducer)
      const ok = v.name_correct === 1 && v.args_exact_match === 1
      out.push({ suite: u.suite, id: u.turns === 1 ? u.id : `${u.id}#${k + 1}`, values: v, failures: ok ? [] : ['wrong'] })
    }
  }
  return out
}

/**
 * A graphical procedure (Bretz, Maurer, Brannath and Posch, 2009) decided on the comparison's unadjusted one-sided
 * p-values, for comparison with the gate's own: per gated metric (its share of α as the gate gives it), the overall
 * scope starts with 1 − ε of it and the suites with ε split equally; edges overall → suites (equally) and each
 * suite → overall; a wholly rejected metric passes nothing on (conservative). Weighted Bonferroni with the graph's
 * updates: the family-wise rate holds under any dependence. Fails the run on a rejection with a drop ≥ minDrop.
 */
function graphFails(c, eps, alpha = 0.05, minDrop = 0.02) {
  const metrics = c.options.metrics
  const suites = Object.keys(c.suites)
  const scopes = suites.length > 1 ? ['', ...suites] : ['']
  const share = (m) => (m === 'args_exact_match' && metrics.includes('name_correct') ? 2 : 1)
  const total = metrics.reduce((a, m) => a + share(m), 0)
  const hyps = []
  for (const m of metrics) {
    for (const scope of scopes) {
      const mc = scope === '' ? c.metrics[m] : c.suites[scope]?.metrics[m]
      if (!mc) continue
      hyps.push({ m, overall: scope === '', p: mc.delta < 0 ? mc.pValue : 1, delta: mc.delta })
    }
  }
  const k = hyps.length
  const w = hyps.map((h) => {
    const wm = share(h.m) / total
    const s = scopes.length - 1
    return s === 0 ? wm : h.overall ? (1 - eps) * wm : (eps * wm) / s
  })
  let G = hyps.map((h, i) =>
    hyps.map((g, j) => {
      if (i === j || h.m !== g.m) return 0
      if (h.overall) return g.overall ? 0 : 1 / (scopes.length - 1)
      return g.overall ? 1 : 0
    }),
  )
  const left = new Set(hyps.map((_, i) => i))
  for (;;) {
    const i = [...left].find((j) => hyps[j].p <= w[j] * alpha)
    if (i === undefined) return false
    if (hyps[i].delta <= -minDrop) return true
    left.delete(i)
    const next = G.map((row) => row.slice())
    for (const j of left) {
      w[j] += w[i] * G[i][j]
      for (const l of left) {
        if (j === l) continue
        const den = 1 - G[j][i] * G[i][j]
        next[j][l] = den > 0 ? (G[j][l] + G[j][i] * G[i][l]) / den : 0
      }
    }
    w[i] = 0
    G = next
  }
}

function simulateDesign(spec, run, drop, reps, seed) {
  const project = makeDesign(seed, spec)
  const r = rng(seed * 7919 + 3)
  let alarms = 0
  let ref = 0
  let warn = 0
  let wrongRed = 0
  let refMin = 0
  let refBonf = 0
  const graph = GRAPH_EPS.map(() => 0)
  const mdes = []
  for (let i = 0; i < reps; i++) {
    const base = drawDesignRun(project, r, run, { d: 0 })
    const head = drawDesignRun(project, r, run, drop)
    const c = compareRuns({ outcomes: base }, { outcomes: head })
    if (!c.pass) alarms++
    if (warned(c)) warn++
    // A red mark for a metric not gated: what the views showed before (now "dropped (not gated)").
    if (c.pass && [c.metrics, ...Object.values(c.suites).map((x) => x.metrics)].some((ms) => Object.values(ms).some((m) => !m.gated && m.verdict === 'regressed'))) wrongRed++
    const m = c.metrics[DROPPED]
    if (m && m.mde != null) mdes.push(m.mde)
    // One unadjusted one-sided test at α = 0.05 on the metric that moved, where it moved (its suite, or overall).
    const moved = drop.suite === undefined ? m : c.suites[drop.suite]?.metrics[DROPPED]
    if (moved && moved.delta < 0 && moved.pValue <= 0.05) ref++
    // The same test with the verdict's minDrop (2 points): a true drop of exactly minDrop is seen half the time.
    if (moved && moved.delta <= -0.02 && moved.pValue <= 0.05) refMin++
    // The same test at α over every gated hypothesis (Bonferroni over metrics × scopes): what the family's
    // multiplicity allows a drop confined to one scope, whatever the procedure.
    const suiteCount = Object.keys(c.suites).length
    const family = c.options.metrics.length * (suiteCount > 1 ? 1 + suiteCount : 1)
    if (moved && moved.delta <= -0.02 && moved.pValue <= 0.05 / family) refBonf++
    GRAPH_EPS.forEach((eps, j) => (graph[j] += graphFails(c, eps) ? 1 : 0))
  }
  mdes.sort((a, b) => a - b)
  return { gate: alarms / reps, ref: ref / reps, refMin: refMin / reps, refBonf: refBonf / reps, graph: graph.map((g) => g / reps), warn: warn / reps, red: wrongRed / reps, mde: mdes.length ? mdes[Math.floor(mdes.length / 2)] : null, reps }
}

async function designs() {
  const flaky = { a: 0.6, b: 0.4 }
  const nearDet = { a: 0.08, b: 0.02 }
  const list = [
    ['400 single, flaky Beta(0.6,0.4), kinds redrawn', { units: 400, ...flaky }, {}, [['args', 0.05], ['opposite', 0.05], ['both', 0.05]]],
    ['400 single, flaky, kinds fixed', { units: 400, ...flaky, fixedKinds: true }, {}, [['args', 0.05]]],
    ['2,000 single, near-deterministic Beta(0.08,0.02)', { units: 2000, ...nearDet }, {}, [['args', 0.02], ['both', 0.02]]],
    ['30 single, flaky', { units: 30, ...flaky }, {}, [['both', 0.15]]],
    ['60 dialogues of 1-25 turns, ρ 0.5', { units: 60, ...flaky, dialogues: true }, { rho: 0.5 }, [['both', 0.05], ['args', 0.1]]],
    ['8 suites × 25, flaky', { units: 25, suites: 8, ...flaky }, {}, [['both', 0.08], ['both-one', 0.24]]],
    ['200 single, trials 5 mean', { units: 200, ...flaky }, { trials: 5, reducer: 'mean' }, [['both', 0.05]]],
    ['200 single, trials 5 all', { units: 200, ...flaky }, { trials: 5, reducer: 'all' }, [['both', 0.05]]],
    ['200 single, trials 5 any', { units: 200, ...flaky }, { trials: 5, reducer: 'any' }, [['both', 0.05]]],
    ['16 suites × 8, flaky', { units: 8, suites: 16, ...flaky }, {}, [['both', 0.1], ['both-one', 0.4]]],
  ]
  console.log(`gate-sim designs: ${dist}`)
  console.log(`| design | drop | runs | gate fails | one unadjusted test on the moved metric | gate / one test | the same test with minDrop | that test at α over every gated hypothesis (Bonferroni) | warns | passing runs with a red ❌ on a metric not gated (old views) | median stated MDE (pts) |${GRAPH_EPS.map((e) => ` graphical, suites ε = ${e} |`).join('')}`)
  console.log(`| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |${GRAPH_EPS.map(() => ' ---: |').join('')}`)
  let seed = 9001
  const only = process.env.GATE_SIM_ONLY
  for (const [name, spec, run, drops] of list) {
    seed++
    if (only && !name.includes(only)) continue
    const z = simulateDesign(spec, run, { d: 0 }, NULL_REPS, seed)
    console.log(`| ${name} | none | ${z.reps} | ${pct(z.gate)} | ${pct(z.ref)} | | ${pct(z.refMin)} | ${pct(z.refBonf)} | ${pct(z.warn)} | ${pct(z.red)} | ${z.mde == null ? '–' : (z.mde * 100).toFixed(1)} |${graphCells(z)}`)
    for (const [kind, d] of drops) {
      const drop = kind === 'both-one' ? { kind: 'both', d, suite: 'suite0' } : { kind, d }
      const s = simulateDesign(spec, run, drop, DROP_REPS, seed)
      // Under all / any the drop is of each trial's p: the reduced metric falls by more (all) or less (any).
      const perTrial = run.reducer === 'all' || run.reducer === 'any' ? ' per trial' : ''
      const label = `${kind === 'both-one' ? 'both, suite0 only' : kind} −${(d * 100).toFixed(0)}${perTrial}`
      console.log(`| ${name} | ${label} | ${s.reps} | ${pct(s.gate)} | ${pct(s.ref)} | ${s.ref > 0 ? (s.gate / s.ref).toFixed(2) : ''} | ${pct(s.refMin)} | ${pct(s.refBonf)} | ${pct(s.warn)} | | |${graphCells(s)}`)
    }
    // Power at the MDE the report states (its median over the null runs), for the first drop kind.
    if (z.mde != null && z.mde < 0.5 && run.reducer !== 'all' && run.reducer !== 'any') {
      const kind = drops[0][0] === 'both-one' ? 'both' : drops[0][0]
      const s = simulateDesign(spec, run, { kind, d: z.mde }, DROP_REPS, seed)
      console.log(`| ${name} | ${kind} at its stated MDE −${(z.mde * 100).toFixed(1)} | ${s.reps} | ${pct(s.gate)} | ${pct(s.ref)} | ${s.ref > 0 ? (s.gate / s.ref).toFixed(2) : ''} | ${pct(s.refMin)} | ${pct(s.refBonf)} | ${pct(s.warn)} | | |${graphCells(s)}`)
    }
  }
  console.log(`Monte Carlo standard error: ${pct(Math.sqrt(0.05 * 0.95 / NULL_REPS))} at 5% (${NULL_REPS} runs per null), ${pct(Math.sqrt(0.8 * 0.2 / DROP_REPS))} at 80% (${DROP_REPS} per drop)`)
}
if (process.env.GATE_SIM_SET !== 'old') await designs()
