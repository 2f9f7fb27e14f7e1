// `tool-evals plan` and planGate: the gate's power and the samples it needs, from a baseline's own trials and
// dialogues. Figures are checked against the power functions on a design computed here from its definition.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../../src/cli/command.js'
import { planCommand } from '../../../src/cli/plan.js'
import type { SampleOutcome } from '../../../src/reporter/compare/outcomes.js'
import { writeSamplesFile } from '../../../src/reporter/compare/gate.js'
import { compareRuns } from '../../../src/reporter/compare/compare.js'
import { planGate } from '../../../src/reporter/compare/plan.js'
import { gatePower, scaleDesign } from '../../../src/score/power.js'

const dir = mkdtempSync(join(tmpdir(), 'tool-evals-plan-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** 200 samples under trials 3 with `mean`: 120 always right, 40 right in 1 of 3, 40 in 2 of 3. */
function baseline(): SampleOutcome[] {
  return Array.from({ length: 200 }, (_, i) => {
    const share = i < 120 ? 1 : i < 160 ? 1 / 3 : 2 / 3
    return { suite: 'weather', id: `s${i}`, values: { name_correct: share, args_exact_match: share }, failures: [] }
  })
}

/** A finished run's report and its per-sample file, bound together as the reporter writes them (run id, hash). */
function writeReport(name: string, outcomes: SampleOutcome[], extra: Record<string, unknown> = {}): string {
  const file = join(dir, `${name}.json`)
  const written = writeSamplesFile(file, outcomes)
  writeFileSync(file, JSON.stringify({ samples: outcomes.length, ...written, ...extra }))
  return file
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const sink = (f: (s: string) => void) => new Writable({ write: (chunk, _e, cb) => (f(String(chunk)), cb()) })
  const code = await runCli([planCommand], argv, { stdin: process.stdin, stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)) })
  return { code, out, err }
}

describe('planGate', () => {
  it('estimates the discordance from the trials without bias, and gives the power of the gate as it decides', () => {
    const plan = planGate(baseline(), { count: 3 }, { mde: 0.05 })
    // Each flaky sample: p̂(1 − p̂) = 2/9, times k/(k − 1) = 3/2: 1/3 per trial; two runs: 2/3. 80 of 200.
    const discordance = (80 * (2 / 3)) / 200
    expect(plan.metric).toBe('args_exact_match')
    expect(plan.discordance).toBeCloseTo(discordance, 12)
    expect(plan.flaky).toBeCloseTo(0.4, 12)
    // Two gated metrics (name_correct, args_exact_match), each tested for itself: args_exact_match at its share 2α/3.
    expect(plan.family).toBe(2)
    expect(plan.level).toBeCloseTo(0.05 * (2 / 3), 15)
    const design = { n: 200, clusters: 200, mcnemar: true, discordance, se: Math.sqrt(discordance * 200) / 200, rate: 0.8 }
    const at5 = plan.powerAt.find((p) => p.drop === 0.05)!
    expect(at5.power).toBeCloseTo(gatePower(design, 0.05, plan.level, 0.02), 12)
    // The samples it names reach 80% at 5 points; 2% fewer do not.
    const factor = plan.samplesNeeded! / 200
    expect(gatePower(scaleDesign(design, factor), 0.05, plan.level, 0.02)).toBeGreaterThanOrEqual(0.8)
    expect(gatePower(scaleDesign(design, factor * 0.98), 0.05, plan.level, 0.02)).toBeLessThan(0.8)
    // More trials per sample: more power at the same size, and the trials it names reach 80%.
    const three = planGate(baseline(), { count: 3 }, { mde: 0.05, trials: 3 })
    expect(three.powerAt.find((p) => p.drop === 0.05)!.power).toBeGreaterThan(at5.power)
    expect(gatePower(scaleDesign(design, 1, plan.trialsNeeded!), 0.05, plan.level, 0.02)).toBeGreaterThanOrEqual(0.8)
  })

  it('without trials says the flakiness is unknown and assumes none; from flip rates when values are 0/1', () => {
    const plain = baseline().map((o) => ({ ...o, values: { args_exact_match: o.values['args_exact_match']! >= 0.5 ? 1 : 0 } }))
    const none = planGate(plain, undefined)
    expect(none.discordance).toBe(0)
    expect(none.notes.join(' ')).toMatch(/without trials/)
    // Under `all` (0/1 values), the report's flip rates carry the flakiness: f = 1/3 → f(1 − f) = 2/9.
    const flipRates = Object.fromEntries(plain.slice(120).map((o) => [`weather > ${o.id}`, 1 / 3]))
    expect(planGate(plain, { count: 3, flipRates }).discordance).toBeCloseTo((80 * (2 / 3)) / 200, 12)
  })
})

describe('planGate on dialogues', () => {
  it('measures the clustered variance from the trials: turns that fail together count as one draw, not five', () => {
    // 20 dialogues of 5 turns, 3 trials, one line per trial. Dialogues 0-9 are right in trial 0 only, every turn
    // together; 10-19 always right. Each turn's share 1/3 gives 1/3 per trial, 5/3 per dialogue if turns were
    // independent; the dialogue's sums over the trials (5, 0, 0) vary 75/9 per trial: five times as much.
    const lines: SampleOutcome[] = []
    for (let d = 0; d < 20; d++)
      for (let k = 1; k <= 5; k++)
        for (let t = 0; t < 3; t++) {
          const v = d >= 10 || t === 0 ? 1 : 0
          lines.push({ suite: 'w', id: `d${d}#${k}`, trial: t, values: { args_exact_match: v }, failures: [] })
        }
    const plan = planGate(lines, { count: 3 })
    expect(plan.clusters).toBe(20)
    // ψ counts turns alone (50 flaky turns, 1/3 per trial, two runs: 1/3 of 100); the dialogues' sums carry the rest.
    expect(plan.discordance).toBeCloseTo((2 * 50 * (1 / 3)) / 100, 12)
    expect(plan.designEffect).toBeCloseTo(5, 12)
    expect(plan.notes.join(' ')).toMatch(/varies 5\.00× as much as independent turns/)
    // Turns that vary independently within a dialogue (trial t wrong on turn t only): the design effect is below 1.
    const spread = lines.map((o) => ({ ...o, values: { args_exact_match: Number(o.id.slice(1).split('#')[0]) >= 10 || o.trial === (Number(o.id.split('#')[1]) % 3) ? 1 : 0 } }))
    expect(planGate(spread, { count: 3 }).designEffect).toBeLessThan(1 / 3)
  })

  it('a drop carries the design effect as the noise does: turns that fail together need five times the samples', () => {
    // The baseline above (design effect 5), and the same values folded to one line per sample (each turn's share of
    // its 3 trials: the correlation cannot be seen, turns are taken as independent).
    const lines: SampleOutcome[] = []
    for (let d = 0; d < 20; d++)
      for (let k = 1; k <= 5; k++)
        for (let t = 0; t < 3; t++) lines.push({ suite: 'w', id: `d${d}#${k}`, trial: t, values: { args_exact_match: d >= 10 || t === 0 ? 1 : 0 }, failures: [] })
    const folded = lines.filter((o) => o.trial === 0).map(({ trial: _t, ...o }) => ({ ...o, values: { args_exact_match: Number(o.id.slice(1).split('#')[0]) >= 10 ? 1 : 1 / 3 } }))
    const correlated = planGate(lines, { count: 3 }, { mde: 0.1 })
    const independent = planGate(folded, { count: 3 }, { mde: 0.1 })
    expect(independent.designEffect).toBe(1)
    expect(independent.discordance).toBeCloseTo(correlated.discordance, 12)
    // Noise and drop both five times the variance: five times the samples (the t test's degrees of freedom aside).
    // With the drop's variance left as for independent turns, it named 4.0 times.
    expect(correlated.samplesNeeded! / independent.samplesNeeded!).toBeGreaterThan(4.7)
    expect(correlated.samplesNeeded! / independent.samplesNeeded!).toBeLessThan(5.3)
    // Ten flaky dialogues of 3 trials are about 20 degrees of freedom: the plan says how far off its size may be.
    expect(correlated.noiseDf).toBeCloseTo(20, 9)
    expect(correlated.notes.join(' ')).toMatch(/samples needed may be 0\.\d\d× to \d\.\d\d× what is named/)
    expect(planGate(baseline(), { count: 3 }).notes.join(' ')).not.toMatch(/degrees of freedom/)
  })

  it('a metric that is not 0/1 per trial (a similarity score) keeps the upper bound: its base rate is no rate of right answers', () => {
    const lines: SampleOutcome[] = []
    for (let i = 0; i < 200; i++) for (let t = 0; t < 3; t++) lines.push({ suite: 's', id: `c${i}`, trial: t, values: { similarity: i % 2 ? [0.1, 0.35, 0.6][t]! : 0.35 }, failures: [] })
    const p = planGate(lines, undefined, { metric: 'similarity' })
    // Each sample alone: se² = ψ/n. With the base rate (0.35) read as one, ψ/p̄ ≈ 2 made a drop remove noise (52% power
    // at 10 points where the rate-free bound gives 48%).
    const design = { n: p.samples, clusters: p.samples, mcnemar: false, discordance: p.discordance, se: Math.sqrt(p.discordance / p.samples) }
    for (const { drop, power } of p.powerAt) expect(power).toBeCloseTo(gatePower(scaleDesign(design, 1, 1), drop, p.level, p.minDrop), 12)
  })
})

/** mulberry32, seeded: the simulated gate below is deterministic. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A run of 40 samples that never vary (34 always right, 6 always wrong) under `trials` with `mean`; a drop loses each
 * trial of a right sample with the probability that lowers the rate by `drop` (as bench/gate-sim.js draws it).
 */
function noiselessRun(r: () => number, trials: number, drop = 0): SampleOutcome[] {
  return Array.from({ length: 40 }, (_, i) => {
    const p = i < 34 ? 1 - (drop * 40) / 34 : 0
    let right = 0
    for (let t = 0; t < trials; t++) if (r() < p) right++
    const v = right / trials
    return { suite: 'weather', id: `s${i}`, values: { name_correct: v, args_exact_match: v }, failures: v === 1 ? [] : ['wrong_name'] }
  })
}

describe('planGate: power, MDE and what is needed are one computation, and the gate achieves them', () => {
  const at = (plan: ReturnType<typeof planGate>, drop: number) => plan.powerAt.find((p) => p.drop === drop)!.power

  it('with no flakiness and trials: power rises smoothly to 80% at the MDE, and trials are a recommendation', () => {
    const base = noiselessRun(rng(1), 3)
    for (const trials of [1, 3, 5]) {
      const plan = planGate(base, { count: 3 }, { trials, mde: 0.03 })
      expect(plan.discordance).toBe(0)
      // The power at the MDE it states is 80% (not a step from 0% to 100% around it), and below it less.
      const mde = plan.mdeNow!
      const near = planGate(base, { count: 3 }, { trials, mde })
      expect(at(near, mde)).toBeGreaterThanOrEqual(0.8)
      expect(at(near, mde)).toBeLessThan(0.81)
      expect(at(planGate(base, { count: 3 }, { trials, mde: mde - 0.005 }), mde - 0.005)).toBeLessThan(0.8)
      for (const drop of [0.05, 0.1]) expect(at(plan, drop) >= 0.8).toBe(drop >= mde)
      // Trials it names reach 80% at the target, one fewer does not; the samples it names at these trials do.
      const k = plan.trialsNeeded!
      expect(k).toBeGreaterThan(1)
      expect(at(planGate(base, { count: 3 }, { trials: k, mde: 0.03 }), 0.03)).toBeGreaterThanOrEqual(0.8)
      expect(at(planGate(base, { count: 3 }, { trials: k - 1, mde: 0.03 }), 0.03)).toBeLessThan(0.8)
    }
    // 40 samples × 6 trials carry a drop as 240 samples × 1 trial do: the recommendations agree.
    const one = planGate(base, { count: 3 }, { trials: 1, mde: 0.03 })
    expect(one.trialsNeeded! * 40).toBeGreaterThanOrEqual(one.samplesNeeded!)
    expect((one.trialsNeeded! - 1) * 40).toBeLessThan(one.samplesNeeded!)
  })

  it('counts in the family only the units that can reject, as the gate does (Tarone)', () => {
    const noCall = (n: number, flaky: boolean): SampleOutcome[] =>
      Array.from({ length: n }, (_, i) => ({ suite: 'weather', id: `n${i}`, values: { no_call_accuracy: flaky && i % 2 ? 1 / 3 : 1 }, failures: [] }))
    // 20 samples that expect no call and never vary: no_call_accuracy cannot reject with no change, so it is out.
    const stable = planGate([...baseline(), ...noCall(20, false)], { count: 3 })
    expect([stable.family, stable.familyMax, stable.level]).toEqual([2, 3, expect.closeTo(0.05 * (2 / 3), 15)])
    // 200 of them, half flaky: dozens of discordant samples expected, so it joins and halves the level.
    const flaky = planGate([...baseline(), ...noCall(200, true)], { count: 3 })
    expect([flaky.family, flaky.familyMax, flaky.level]).toEqual([3, 3, 0.025])
  })

  it('the gate simulated at the planned size, trials and drop fails as often as the plan says (within 10 points)', () => {
    const r = rng(2)
    const plan = planGate(noiselessRun(r, 3), { count: 3 }, { trials: 3, mde: 0.1 })
    for (const drop of [plan.mdeNow!, 0.1]) {
      const planned = at(planGate(noiselessRun(r, 3), { count: 3 }, { trials: 3, mde: drop }), drop)
      const reps = 150
      let failed = 0
      for (let i = 0; i < reps; i++) if (!compareRuns({ outcomes: noiselessRun(r, 3) }, { outcomes: noiselessRun(r, 3, drop) }).pass) failed++
      expect(Math.abs(failed / reps - planned), `drop ${drop}: planned ${planned}, gate ${failed / reps}`).toBeLessThanOrEqual(0.1)
    }
  })
})

describe('tool-evals plan', () => {
  it('prints the plan, or JSON; a missing --baseline is a usage error', async () => {
    const file = writeReport('base', baseline(), { trials: { samples: 200, count: 3 } })
    const text = await cli(['plan', '--baseline', file, '--mde', '0.05'])
    expect(text.code).toBe(0)
    expect(text.out).toMatch(/gate plan for args_exact_match: 200 samples in 200 clusters; baseline trials 3/)
    expect(text.out).toMatch(/to detect 5\.0 pts with 80% power: [\d,]+ samples with 1 trial/)
    const json = await cli(['plan', '--baseline', file, '--format', 'json', '--trials', '2'])
    expect(JSON.parse(json.out)).toMatchObject({ metric: 'args_exact_match', trials: 2, target: 0.03, samples: 200 })
    // A baseline that never varies, planned with 3 trials: the printed power, MDE and trials agree.
    const still = await cli(['plan', '--baseline', writeReport('still', noiselessRun(rng(3), 3), { trials: { samples: 40, count: 3 } }), '--trials', '3'])
    const mde = Number(/MDE \(80% power\) now: ([\d.]+) pts/.exec(still.out)?.[1])
    const at10 = Number(/10\.0 pts (\d+)%/.exec(still.out)?.[1])
    expect(mde).toBeLessThan(10)
    expect(at10).toBeGreaterThanOrEqual(80)
    expect(still.out).toMatch(/at 40 samples, \d+ trial\(s\) per sample/)
    expect((await cli(['plan'])).code).toBe(2)
    expect((await cli(['plan', '--baseline', file, '--trials', '1.5'])).code).toBe(2)
    expect((await cli(['plan', '--baseline', join(dir, 'nope.json')])).code).toBe(1)
  })
})
