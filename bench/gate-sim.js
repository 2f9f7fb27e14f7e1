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
//   GATE_SIM_PLAN=1 node bench/gate-sim.js      (check mode: `tool-evals plan`'s power and MDE against the gate's)
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'

const dist = process.env.GATE_SIM_DIST ? pathToFileURL(resolve(process.env.GATE_SIM_DIST)).href : new URL('../dist/', import.meta.url).href
const { compareRuns } = await import(`${dist.replace(/\/?$/, '/')}reporter/compare/compare.js`)
// The reference test always comes from this checkout's build (the clustered tests are new here).
const ref = await import(new URL('../dist/reporter/compare/compare.js', import.meta.url).href)
const SCALE = Number(process.env.GATE_SIM_REPS ?? 1)
const NULL_REPS = Math.max(20, Math.round(2000 * SCALE))
const DROP_REPS = Math.max(20, Math.round(1000 * SCALE))
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
  const callUnits = units.filter((u) => !u.noCall)
  const meanP = callUnits.reduce((a, u) => a + u.p * u.turns, 0) / callUnits.reduce((a, u) => a + u.turns, 0)
  return { units, meanP }
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
  for (const [name, spec] of projects) {
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
  console.log(`Monte Carlo standard error at 80%: ${pct(Math.sqrt(0.8 * 0.2 / DROP_REPS))} (${DROP_REPS} runs per row)`)
}
const pct = (x) => `${(x * 100).toFixed(1)}%`
if (process.env.GATE_SIM_PLAN) {
  await planCheck()
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
