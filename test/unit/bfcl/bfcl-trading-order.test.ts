// BFCL's TradingBot.get_order_details (gorilla 8db0b7ca) returns the order itself, so reading the wrong order is an
// execution-response mismatch in the multi-turn checker, as in BFCL's own `multi_turn_checker.py`.
import { describe, expect, test } from 'vitest'
import { ApiSession } from '../../../src/bfcl/multi-turn/api.js'
import { multiTurnChecker } from '../../../src/bfcl/multi-turn/checker.js'
import { InstanceSet } from '../../../src/bfcl/multi-turn/executor.js'
import { fromJson, type PyDict } from '../../../src/python/operations.js'

const ORDER = (symbol: string) => ({ id: 0, order_type: 'Buy', symbol, price: 150.0, amount: 2, status: 'Completed' })
const CONFIG = fromJson({ TradingBot: { authenticated: true, orders: { '12345': ORDER('AAPL'), '12446': ORDER('GOOG') } } }) as PyDict

describe('TradingBot.get_order_details', () => {
  test('returns the stored order (without long context)', () => {
    const t = new InstanceSet(new ApiSession(), ['TradingBot'], CONFIG, 'm_eval_x_0', false)
    expect(t.execute(['get_order_details(order_id=12446)'])[0]).toContain('"symbol": "GOOG"')
    expect(t.execute(['get_order_details(order_id=1)'])[0]).toContain('not found')
  })
  test('reading order 12345 where the ground truth reads 12446: execution_response_mismatch', () => {
    const entry = { id: 'multi_turn_miss_func_0', initialConfig: CONFIG, involvedClasses: ['TradingBot'], json: {} }
    const gt = [['get_order_details(order_id=12446)']]
    const opts = { modelName: 'm', session: new ApiSession() }
    expect(multiTurnChecker([[['get_order_details(order_id=12446)']]], gt, entry, opts).valid).toBe(true)
    expect(multiTurnChecker([[['get_order_details(order_id=12345)']]], gt, entry, opts).error_type).toBe('multi_turn:execution_response_mismatch')
  })
})
