// BFCL's multi_turn_long_context: the long_context.py data and every long-context branch of the simulated APIs
// (gorilla 8db0b7ca). No recorded long-context results exist, so these pin each behaviour against the reference's code.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { ApiSession } from '../../../src/bfcl/multi-turn/api.js'
import { multiTurnChecker } from '../../../src/bfcl/multi-turn/checker.js'
import { parseJsonLines } from '../../../src/bfcl/checker/files.js'
import { InstanceSet } from '../../../src/bfcl/multi-turn/executor.js'
import { loadLongContextData } from '../../../src/bfcl/multi-turn/long-context.js'
import { PyFloat, fromJson, type PyDict } from '../../../src/python/operations.js'

function instances(classes: string[], config: object = {}, session = new ApiSession(), longContext = true, name = 'm_eval_x_0') {
  return new InstanceSet(session, classes, fromJson(config as never) as PyDict, name, longContext)
}

const FS = {
  GorillaFileSystem: {
    root: {
      w: {
        type: 'directory',
        contents: {
          'report.txt': { type: 'file', content: 'kept' },
          'notes.txt': { type: 'file', content: 'short' },
          docs: { type: 'directory', contents: { 'a.txt': { type: 'file', content: 'x' } } },
        },
      },
    },
  },
}

describe('the long-context data', () => {
  test("is long_context.py's: sizes, Python floats and the watch list's trailing Ellipsis", () => {
    const d = loadLongContextData()
    expect([d.watchListExtension.length, d.transactionHistoryExtension.length, d.ma5Extension.length, d.intermediaryCities.length]).toEqual([1001, 1000, 2000, 826])
    expect(d.creditCardExtension.size).toBe(22)
    expect(d.bookingRecordExtension.size).toBe(16)
    expect(d.populateFileExtension).toHaveLength(30)
    expect(d.filesTailUsed).toContain('report.txt')
    // 5000.0 stays a float (printed with .0), 123 an int.
    const card = d.creditCardExtension.get('1234567812345678') as PyDict
    expect(card.get('balance')).toBeInstanceOf(PyFloat)
    expect(card.get('card_verification_number')).toBe(123)
  })
})

describe('GorillaFileSystem with long context', () => {
  test('file contents get the extension (except the files the questions use), bottom directories 30 more files', () => {
    const fs = instances(['GorillaFileSystem'], FS)
    const ext = loadLongContextData().fileContentExtension
    const [kept, notes, top, docs] = fs.execute(["cat(file_name='report.txt')", "cat(file_name='notes.txt')", 'ls()', "cd(folder='docs')"])
    expect(JSON.parse(kept!)).toEqual({ file_content: 'kept' })
    expect(JSON.parse(notes!)).toEqual({ file_content: 'short' + ext })
    // The top directory has a subdirectory: not populated. docs is bottommost: populated.
    expect(JSON.parse(top!).current_directory_content).toEqual(['report.txt', 'notes.txt', 'docs'])
    expect(docs).toBe('{"current_working_directory": "docs"}')
    const inDocs = JSON.parse(fs.execute(['ls()'])[0]!).current_directory_content as string[]
    expect(inDocs).toHaveLength(31)
    expect(inDocs.slice(0, 2)).toEqual(['a.txt', 'image_344822349461074042.jpg'])
  })

  test('without long context nothing is added', () => {
    const fs = instances(['GorillaFileSystem'], FS, new ApiSession(), false)
    expect(fs.execute(["cat(file_name='notes.txt')"])).toEqual(['{"file_content": "short"}'])
  })
})

const TRADING = { TradingBot: { authenticated: true, watch_list: ['NVDA'], transaction_history: [] } }

describe('TradingBot with long context', () => {
  test('stock info carries the 2000-value moving averages (a copy: the state keeps its own)', () => {
    const t = instances(['TradingBot'], TRADING)
    const info = JSON.parse(t.execute(["get_stock_info(symbol='AAPL')"])[0]!)
    expect(info['MA(5)']).toHaveLength(2000)
    expect(info['MA(5)'][0]).toBe(234.34)
    expect(typeof JSON.parse(instances(['TradingBot'], TRADING, new ApiSession(), false).execute(["get_stock_info(symbol='AAPL')"])[0]!)['MA(5)']).toBe('number')
  })

  test('order details: the metadata texts with the symbol filled in; the bare order without long context', () => {
    const t = instances(['TradingBot'], TRADING)
    const order = JSON.parse(t.execute(['get_order_details(order_id=12345)'])[0]!)
    expect(Object.keys(order.metadata)).toHaveLength(8)
    expect(order.metadata.company_overview).toContain('AAPL is one of the most influential companies')
    expect(order.metadata.company_overview).not.toContain('{symbol}')
    // gorilla 8db0b7ca returns the stored order itself without long context (no metadata).
    expect(JSON.parse(instances(['TradingBot'], TRADING, new ApiSession(), false).execute(['get_order_details(order_id=12345)'])[0]!)).not.toHaveProperty('metadata')
  })

  test("the watch list comes back as a bare list, extended, ending in Python's Ellipsis (str() of a list)", () => {
    const r = instances(['TradingBot'], TRADING).execute(['get_watchlist()'])[0]!
    expect(r.startsWith("['NVDA', 'JHGUN', 'LMAT'")).toBe(true)
    expect(r.endsWith("'ZRFRE', Ellipsis]")).toBe(true)
  })

  test('transaction history and sector lists are extended', () => {
    const t = instances(['TradingBot'], TRADING)
    const [history, tech, cars] = t.execute(['get_transaction_history()', "get_available_stocks(sector='Technology')", "get_available_stocks(sector='Automobile')"])
    expect(JSON.parse(history!).transaction_history).toHaveLength(1000)
    expect(JSON.parse(tech!).stock_list).toHaveLength(1004)
    expect(JSON.parse(cars!).stock_list).toHaveLength(1003)
    // The extension is not kept in the state.
    expect(JSON.parse(t.execute(['get_transaction_history()'])[0]!).transaction_history).toHaveLength(1000)
  })
})

const TRAVEL = {
  TravelAPI: {
    access_token: 'tok',
    token_expires_in: 5,
    credit_card_list: { '1111': { card_number: '1111', balance: 900.0 } },
    booking_record: {},
  },
}

describe('TravelAPI with long context', () => {
  test("the extension's cards and bookings are added; flight costs list every route", () => {
    const t = instances(['TravelAPI'], TRAVEL)
    const cards = JSON.parse(t.execute(["get_all_credit_cards()"])[0]!).credit_card_list
    expect(Object.keys(cards)).toHaveLength(23)
    const costs = JSON.parse(t.execute(["get_flight_cost(travel_from='SFO', travel_to='LAX', travel_date='2024-11-15', travel_class='economy')"])[0]!)
    expect(costs.travel_cost_list.length).toBeGreaterThan(50)
    // The first route (SFO to LAX, base 200), economy, digits of 2024-11-15 sum to 16 (even): twice the base.
    expect(costs.travel_cost_list[0]).toBe(400)
  })

  test('booking returns the whole booking history, and an extension card is shared by the session (module state)', () => {
    const session = new ApiSession()
    const a = instances(['TravelAPI'], TRAVEL, session, true, 'a_eval_x_0')
    const b = instances(['TravelAPI'], TRAVEL, session, true, 'b_eval_x_0')
    const book = "book_flight(access_token='tok', card_id='1234567812345678', travel_date='2024-11-15', travel_from='SFO', travel_to='LAX', travel_class='economy')"
    const booked = JSON.parse(a.execute([book])[0]!)
    expect(booked.booking_status).toBe(true)
    expect(Object.keys(booked.booking_history)).toHaveLength(17)
    const balance = (set: InstanceSet) => JSON.parse(set.execute(["get_credit_card_balance(access_token='tok', card_id='1234567812345678')"])[0]!)
    // b never booked, yet sees a's charge: both hold the module's dict.
    expect(balance(b)).toEqual(balance(a))
    expect(balance(instances(['TravelAPI'], TRAVEL, new ApiSession()))).not.toEqual(balance(a))
  })
})

describe('VehicleControlAPI with long context', () => {
  const CAR = { VehicleControlAPI: {} }
  test('weather: the 15-day dict with the temperature added last, one dict for the session', () => {
    const session = new ApiSession()
    const first = JSON.parse(instances(['VehicleControlAPI'], CAR, session).execute(['get_outside_temperature_from_google()'])[0]!)
    expect(Object.keys(first)).toHaveLength(16)
    expect(Object.keys(first).at(-1)).toBe('outsideTemperature')
    expect(Object.keys(first)[0]).toBe('-1_day')
  })

  test('status metadata, tire car_info, parking-brake instruction first, distance with intermediary cities', () => {
    const d = loadLongContextData()
    const v = instances(['VehicleControlAPI'], CAR)
    const [status, tires, brake, dist, missing] = v.execute([
      "displayCarStatus(option='fuel')",
      'check_tire_pressure()',
      "activateParkingBrake(mode='engage')",
      "estimate_distance(cityA='83214', cityB='74532')",
      "estimate_distance(cityA='1', cityB='2')",
    ])
    expect(Object.keys(JSON.parse(status!))).toEqual(['metadata', 'fuelLevel'])
    expect(JSON.parse(tires!).car_info).toBe(d.carStatusMetadataExtension)
    expect(Object.keys(JSON.parse(brake!))).toEqual(['parkingBrakeInstruction', 'parkingBrakeStatus', '_parkingBrakeForce', '_slopeAngle'])
    expect(JSON.parse(dist!).intermediaryCities).toHaveLength(826)
    expect(Object.keys(JSON.parse(missing!))).toEqual(['error', 'intermediaryCities'])
  })
})

// The ground truth replayed as the model's answer must pass every entry.
const DATA = fileURLToPath(new URL('../../../../shared/bfcl/multi_turn/', import.meta.url))
const available = existsSync(join(DATA, 'BFCL_v4_multi_turn_long_context.json'))
if (!available) console.warn(`[bfcl] ${DATA} not found: the long-context replay test is skipped`)

describe.skipIf(!available)('multi_turn_long_context: the ground truth as the answer', () => {
  test('passes all 200 entries, every turn executed with the long-context data', () => {
    const data = parseJsonLines(readFileSync(join(DATA, 'BFCL_v4_multi_turn_long_context.json'), 'utf8'), 'data').lines
    const answers = parseJsonLines(readFileSync(join(DATA, 'possible_answer', 'BFCL_v4_multi_turn_long_context.json'), 'utf8'), 'answers').lines
    const session = new ApiSession()
    const failures: unknown[] = []
    data.forEach((l, i) => {
      const j = l.json as { id: string; involved_classes: string[] }
      const entry = { id: j.id, initialConfig: (l.py as PyDict).get('initial_config') as PyDict, involvedClasses: j.involved_classes, json: j }
      const truth = (answers[i]!.json as { ground_truth: string[][] }).ground_truth
      // Each turn answered in one step with exactly the ground truth's calls.
      const v = multiTurnChecker(truth.map((turn) => (turn.length === 0 ? [] : [turn])), truth, entry, { modelName: 'replay', session })
      if (!v.valid) failures.push([j.id, v.error_type])
    })
    expect(data).toHaveLength(200)
    expect(failures).toEqual([])
  })
})

describe('score file lines', () => {
  test("an inference error's message is a list without details, a checker failure's a string with details (the reference's shapes)", async () => {
    const { multiTurnScoreFileText } = await import('../../../src/bfcl/multi-turn/category.js')
    const text = multiTurnScoreFileText(
      {
        category: 'multi_turn_base',
        accuracy: 0,
        correct_count: 0,
        total_count: 2,
        errors: [],
        entries: [
          { id: 'multi_turn_base_0', valid: false, error_type: 'multi_turn:inference_error', error_message: 'Error during inference phase. Model did not output a list of model responses.' },
          { id: 'multi_turn_base_1', valid: false, error_type: 'multi_turn:execution_response_mismatch', error_message: 'm', details: { missing_items: ['x'] } },
        ],
      },
      'm',
    )
    const [head, a, b] = text.trim().split('\n').map((l) => JSON.parse(l))
    expect(head).toEqual({ accuracy: 0, correct_count: 0, total_count: 2 })
    // Python's accuracy is a float: 0.0, not 0.
    expect(text.startsWith('{"accuracy": 0.0, "correct_count": 0, "total_count": 2}\n')).toBe(true)
    expect(a.error).toEqual({ error_message: ['Error during inference phase. Model did not output a list of model responses.'], error_type: 'multi_turn:inference_error' })
    expect(b.error).toEqual({ error_message: 'm', error_type: 'multi_turn:execution_response_mismatch', details: { missing_items: ['x'] } })
  })
})
