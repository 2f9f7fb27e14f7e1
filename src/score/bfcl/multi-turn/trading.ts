/** BFCL's TradingBot (trading_bot.py) and the stateless MathAPI. */
import { PyFloat, type PyDict, type PyKey } from '../pyvalue.js'
import { SimulatedApi, get, m, opt, type ApiMethod } from './api.js'
import {
  PyExc,
  PyRandom,
  abs,
  add,
  cmp,
  contains,
  dict,
  eq,
  fl,
  getKey,
  hasKey,
  isIntOrFloat,
  mul,
  needStr,
  num,
  pow,
  pySum,
  str,
  sub,
  toFloat,
  toInt,
  truediv,
  truthy,
  typeName,
  type Val,
} from './pyrt.js'

const f = (x: number) => new PyFloat(x)
const stock = (price: number, change: number, volume: number, ma5: number, ma20: number): PyDict =>
  dict([['price', fl(price)], ['percent_change', fl(change)], ['volume', fl(volume)], ['MA(5)', fl(ma5)], ['MA(20)', fl(ma20)]])

function defaultStocks(): PyDict {
  return dict([
    ['AAPL', stock(227.16, 0.17, 2.552, 227.11, 227.09)],
    ['GOOG', stock(2840.34, 0.24, 1.123, 2835.67, 2842.15)],
    ['TSLA', stock(667.92, -0.12, 1.654, 671.15, 668.2)],
    ['MSFT', stock(310.23, 0.09, 3.234, 309.88, 310.11)],
    ['NVDA', stock(220.34, 0.34, 1.234, 220.45, 220.67)],
    ['ALPH', stock(1320.45, -0.08, 1.567, 1321.12, 1325.78)],
    ['OMEG', stock(457.23, 0.12, 2.345, 456.78, 458.12)],
    ['QUAS', stock(725.89, -0.03, 1.789, 726.45, 728.0)],
    ['NEPT', stock(88.34, 0.19, 0.654, 88.21, 88.67)],
    ['SYNX', stock(345.67, 0.11, 2.112, 345.34, 346.12)],
    ['ZETA', stock(22.09, -0.05, 0.789, 22.12, 22.34)],
  ])
}

const SYMBOLS: Record<string, string> = {
  Apple: 'AAPL',
  Google: 'GOOG',
  Tesla: 'TSLA',
  Microsoft: 'MSFT',
  Nvidia: 'NVDA',
  'Zeta Corp': 'ZETA',
  'Alpha Tech': 'ALPH',
  'Omega Industries': 'OMEG',
  'Quasar Ltd.': 'QUAS',
  'Neptune Systems': 'NEPT',
  'Synex Solutions': 'SYNX',
  Amazon: 'AMZN',
  Gorilla: 'GORI',
}

/** 2024-09-01 10:30:00 as seconds since the epoch read as local wall time (the reference's naive datetimes). */
const CURRENT_TIME_S = Date.UTC(2024, 8, 1, 10, 30) / 1000

function two(n: number): string {
  return String(n).padStart(2, '0')
}

function formatTimestamp(seconds: number): string {
  const d = new Date(seconds * 1000)
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
}

/** `datetime.strptime(s, '%Y-%m-%d')` (or with the time) as a sortable number; a ValueError message when it does not parse. */
function parseDate(s: Val, withTime: boolean): number {
  const text = needStr(s, 'strptime')
  const re = withTime ? /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})$/ : /^(\d{4})-(\d{1,2})-(\d{1,2})$/
  const mt = re.exec(text)
  const fmt = withTime ? '%Y-%m-%d %H:%M:%S' : '%Y-%m-%d'
  if (!mt) throw new PyExc(`time data ${JSON.stringify(text)} does not match format '${fmt}'`)
  const [y, mo, d, h = '0', mi = '0', se = '0'] = mt.slice(1)
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se))
  const back = new Date(t)
  if (back.getUTCMonth() !== Number(mo) - 1 || back.getUTCDate() !== Number(d)) throw new PyExc('day is out of range for month')
  return t
}

/** Python's `f'{x:.2f}'`. */
function fixed2(v: Val): string {
  return num(v).toFixed(2)
}

export class TradingBot extends SimulatedApi {
  readonly className = 'TradingBot'
  orders: PyDict = new Map()
  accountInfo: PyDict = new Map()
  authenticated: Val = false
  marketStatus: Val = 'Closed'
  orderCounter: Val = 12446
  stocks: PyDict = new Map()
  watchList: Val[] = []
  transactionHistory: Val[] = []
  longContext = false
  private random = new PyRandom(1053520)

  loadScenario(c: PyDict, longContext: boolean): void {
    const orders = get(
      c,
      'orders',
      dict([
        [12345, dict([['id', 12345], ['order_type', 'Buy'], ['symbol', 'AAPL'], ['price', 210.65], ['amount', 10], ['status', 'Completed']])],
        [12446, dict([['id', 12446], ['order_type', 'Sell'], ['symbol', 'GOOG'], ['price', 2840.56], ['amount', 5], ['status', 'Pending']])],
      ]),
    ) as PyDict
    this.orders = new Map([...orders].map(([k, v]) => [typeof k === 'string' && /^[0-9]+$/.test(k) ? Number(k) : k, v]))
    this.accountInfo = get(c, 'account_info', dict([['account_id', 12345], ['balance', f(10000)], ['binding_card', 1974202140965533]])) as PyDict
    this.authenticated = get(c, 'authenticated', false)
    this.marketStatus = get(c, 'market_status', 'Closed')
    this.orderCounter = get(c, 'order_counter', 12446)
    this.stocks = get(c, 'stocks', defaultStocks()) as PyDict
    this.watchList = get(c, 'watch_list', ['NVDA']) as Val[]
    this.transactionHistory = get(c, 'transaction_history', []) as Val[]
    this.longContext = longContext
    this.random = new PyRandom(Number(get(c, 'random_seed', 1053520)))
  }

  state(): [string, Val][] {
    return [
      ['orders', this.orders],
      ['account_info', this.accountInfo],
      ['authenticated', this.authenticated],
      ['market_status', this.marketStatus],
      ['order_counter', this.orderCounter],
      ['stocks', this.stocks],
      ['watch_list', this.watchList],
      ['transaction_history', this.transactionHistory],
      ['long_context', this.longContext],
    ]
  }

  private timestamp(): string {
    return formatTimestamp(this.random.randint(CURRENT_TIME_S, CURRENT_TIME_S + 86400))
  }

  methods(): Record<string, ApiMethod> {
    const authed = () => truthy(this.authenticated)
    const notAuth = (what: string) => dict([['error', `User not authenticated. Please log in to ${what}.`]])
    const price = (sym: Val): Val => {
      const s = getKey(this.stocks, sym) as PyDict | undefined
      return s?.get('price') ?? 0
    }
    return {
      add_to_watchlist: m(['stock'], ([s]) => {
        if (!contains(this.watchList, s) && hasKey(this.stocks, s)) this.watchList.push(s!)
        return dict([['watchlist', this.watchList]])
      }),
      cancel_order: m(['order_id'], ([id]) => {
        if (!hasKey(this.orders, id)) return dict([['error', `Order with ID ${str(id)} not found.`]])
        const order = getKey(this.orders, id) as PyDict
        if (order.get('status') === 'Completed') return dict([['error', `Can't cancel order ${str(id)}. Order is already completed.`]])
        order.set('status', 'Cancelled')
        return dict([['order_id', id!], ['status', 'Cancelled']])
      }),
      filter_stocks_by_price: m(['stocks', 'min_price', 'max_price'], ([stocks, lo, hi]) => {
        const list = iterate(stocks!)
        return dict([['filtered_stocks', list.filter((s) => cmp(price(s), lo, '>=') && cmp(price(s), hi, '<='))]])
      }),
      fund_account: m(['amount'], ([amount]) => {
        if (!authed()) return notAuth('fund the account')
        if (cmp(amount, 0, '<=')) return dict([['error', 'Funding amount must be positive.']])
        this.accountInfo.set('balance', add(this.accountInfo.get('balance'), amount))
        this.transactionHistory.push(dict([['type', 'deposit'], ['amount', amount!], ['timestamp', this.timestamp()]]))
        return dict([['status', 'Account funded successfully'], ['new_balance', this.accountInfo.get('balance')!]])
      }),
      get_account_info: m([], () => (authed() ? this.accountInfo : notAuth('view account information'))),
      get_available_stocks: m(['sector'], ([sector]) => {
        const map: Record<string, Val[]> = { Technology: ['AAPL', 'GOOG', 'MSFT', 'NVDA'], Automobile: ['TSLA', 'F', 'GM'] }
        if (this.longContext) {
          map['Technology']!.push(...this.session.longContext().technologyExtension)
          map['Automobile']!.push(...this.session.longContext().automobileExtension)
        }
        return dict([['stock_list', typeof sector === 'string' && Object.hasOwn(map, sector) ? map[sector]! : []]])
      }),
      get_current_time: m([], () => dict([['current_time', '10:30 AM']])),
      get_order_details: m(['order_id'], ([id]) => {
        if (!hasKey(this.orders, id)) {
          return dict([['error', `Order with ID ${str(id)} not found.Here is the list of orders_id: ${str([...this.orders.keys()])}`]])
        }
        // Without long context the reference returns the stored order itself (gorilla 8db0b7ca), so its details
        // reach the execution-response comparison.
        if (!this.longContext) return getKey(this.orders, id)!
        const order = new Map(getKey(this.orders, id) as PyDict)
        const symbol = str(order.get('symbol'))
        const metadata: PyDict = new Map()
        // The extension's texts have no other format fields than {symbol}.
        for (const [k, v] of this.session.longContext().orderDetailExtension) metadata.set(k, (v as string).replaceAll('{symbol}', symbol))
        order.set('metadata', metadata)
        return order
      }),
      get_order_history: m([], () => (authed() ? dict([['history', [...this.orders.keys()]]]) : [notAuth('view order history')])),
      get_stock_info: m(['symbol'], ([sym]) => {
        if (!hasKey(this.stocks, sym)) return dict([['error', `Stock with symbol '${str(sym)}' not found.`]])
        if (!this.longContext) return getKey(this.stocks, sym)!
        const stock = new Map(getKey(this.stocks, sym) as PyDict)
        stock.set('MA(5)', this.session.longContext().ma5Extension)
        stock.set('MA(20)', this.session.longContext().ma20Extension)
        return stock
      }),
      get_symbol_by_name: m(['name'], ([name]) => dict([['symbol', typeof name === 'string' && Object.hasOwn(SYMBOLS, name) ? SYMBOLS[name]! : 'Stock not found']])),
      get_transaction_history: m([opt('start_date', null), opt('end_date', null)], ([start, end]) => {
        if (!authed()) return [notAuth('view transaction history')]
        const lo = truthy(start) ? parseDate(start!, false) : -Infinity
        const hi = truthy(end) ? parseDate(end!, false) : Infinity
        const history = this.transactionHistory.filter((t) => {
          const at = parseDate((t as PyDict).get('timestamp')!, true)
          return lo <= at && at <= hi
        })
        if (this.longContext) history.push(...this.session.longContext().transactionHistoryExtension)
        return dict([['transaction_history', history]])
      }),
      get_watchlist: m([], () => {
        if (!authed()) return ['Error: User not authenticated. Please log in to view the watchlist.']
        // With long context the reference returns the bare list (its copy, extended), not a dict.
        if (this.longContext) return [...this.watchList, ...this.session.longContext().watchListExtension]
        return dict([['watchlist', this.watchList]])
      }),
      notify_price_change: m(['stocks', 'threshold'], ([stocks, threshold]) => {
        const changed = iterate(stocks!).filter((s) => hasKey(this.stocks, s) && cmp(abs((getKey(this.stocks, s) as PyDict).get('percent_change')), threshold, '>='))
        if (changed.length > 0) return dict([['notification', `Stocks ${changed.map((s) => needStr(s, 'join')).join(', ')} have significant price changes.`]])
        return dict([['notification', 'No significant price changes in the selected stocks.']])
      }),
      place_order: m(['order_type', 'symbol', 'price', 'amount'], ([type, sym, p, amount]) => {
        if (!authed()) return notAuth('place an order')
        if (!hasKey(this.stocks, sym)) return dict([['error', `Invalid stock symbol: ${str(sym)}`]])
        if (cmp(p, 0, '<=') || cmp(amount, 0, '<=')) return dict([['error', 'Price and amount must be positive values.']])
        if (needStr(type, 'lower').toLowerCase() === 'buy') {
          const total = mul(toFloat(p), toInt(amount))
          const balance = getKey(this.accountInfo, 'balance') ?? 0
          if (cmp(total, balance, '>')) {
            return dict([['error', `Insufficient funds: required $${fixed2(total)} but only $${fixed2(balance)} available.`]])
          }
        }
        const fp = toFloat(p)
        const id = this.orderCounter
        this.orders.set(id as PyKey, dict([['id', id], ['order_type', type!], ['symbol', sym!], ['price', fp], ['amount', amount!], ['status', 'Open']]))
        this.orderCounter = (this.orderCounter as number) + 1
        return dict([['order_id', id], ['order_type', type!], ['status', 'Pending'], ['price', fp], ['amount', amount!]])
      }),
      remove_stock_from_watchlist: m(['symbol'], ([sym]) => {
        if (!authed()) return notAuth('modify the watchlist')
        if (!contains(this.watchList, sym)) return dict([['error', `Stock ${str(sym)} not found in watchlist.`]])
        this.watchList.splice(this.watchList.findIndex((x) => eq(x, sym)), 1)
        return dict([['status', `Stock ${str(sym)} removed from watchlist successfully.`]])
      }),
      trading_get_login_status: m([], () => dict([['status', truthy(this.authenticated)]])),
      trading_login: m(['username', 'password'], () => {
        if (authed()) return dict([['status', 'Already logged in']])
        this.authenticated = true
        return dict([['status', 'Logged in successfully']])
      }),
      trading_logout: m([], () => {
        if (!authed()) return dict([['status', 'No user is currently logged in']])
        this.authenticated = false
        return dict([['status', 'Logged out successfully']])
      }),
      withdraw_funds: m(['amount'], ([amount]) => {
        if (!authed()) return notAuth('make a transaction')
        if (this.marketStatus !== 'Open') return dict([['error', 'Market is closed. Transactions are not allowed.']])
        if (cmp(amount, 0, '<=')) return dict([['error', 'Transaction amount must be positive.']])
        if (cmp(amount, this.accountInfo.get('balance'), '>')) return dict([['error', 'Insufficient funds for withdrawal.']])
        this.accountInfo.set('balance', sub(this.accountInfo.get('balance'), amount))
        this.transactionHistory.push(dict([['type', 'withdrawal'], ['amount', amount!], ['timestamp', this.timestamp()]]))
        return dict([['status', 'Withdrawal successful'], ['new_balance', this.accountInfo.get('balance')!]])
      }),
    }
  }
}

function iterate(v: Val): Val[] {
  if (Array.isArray(v)) return v
  if (typeof v === 'string') return Array.from(v)
  if (v instanceof Map) return [...v.keys()]
  throw new PyExc(`'${typeName(v)}' object is not iterable`)
}

/** A value Python prints through its own repr (mpmath's mpf, decimal's Decimal). */
class Printed {
  readonly pyTypeName: string
  constructor(
    readonly text: string,
    typeName: string,
  ) {
    this.pyTypeName = typeName
  }
  pyRepr(): string {
    return this.text
  }
  pyEquals(o: unknown): boolean {
    return o instanceof Printed && o.text === this.text
  }
}

/** `Decimal(x).sqrt()` under a context of `prec` significant digits, printed as Decimal('...'). */
function decimalSqrt(x: number, prec: number): Val {
  if (!Number.isInteger(prec) || prec < 1) throw new PyExc('valid range for prec is [1, MAX_PREC]')
  if (x === 0) return new Printed(`Decimal('0')`, 'Decimal') as unknown as Val
  // Exact binary value of x as n / 2^k, then an integer square root at enough digits, rounded half-even.
  let k = 0
  let v = x
  while (!Number.isInteger(v)) {
    v *= 2
    k++
  }
  const n = BigInt(v)
  // sqrt(n / 2^k) = sqrt(n * 5^k / 10^k)
  let num5 = n * 5n ** BigInt(k)
  let scale = k // value = num5 / 10^scale
  if (scale % 2 === 1) {
    num5 *= 10n
    scale += 1
  }
  const digitsNeeded = prec + 2
  let extra = 0
  while (String(isqrt(num5 * 100n ** BigInt(extra))).length < digitsNeeded) extra++
  const big = num5 * 100n ** BigInt(extra)
  let root = isqrt(big)
  const exact = root * root === big
  const rootDigits = String(root)
  const drop = rootDigits.length - prec
  let exp10 = -(scale / 2) - extra
  if (drop > 0) {
    const div = 10n ** BigInt(drop)
    const q = root / div
    const r = root % div
    const half = div / 2n
    let rounded = q
    if (r > half || (r === half && !exact) || (r === half && exact && q % 2n === 1n)) rounded = q + 1n
    root = rounded
    exp10 += drop
  }
  // Strip trailing zeros only when the result is exact (Decimal's ideal exponent); otherwise keep prec digits.
  let digits = String(root)
  if (exact) {
    while (digits.length > 1 && digits.endsWith('0') && exp10 < -Math.floor(scale / 2) + 0) {
      digits = digits.slice(0, -1)
      exp10++
    }
  }
  return new Printed(`Decimal('${decimalString(digits, exp10)}')`, 'Decimal') as unknown as Val
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n
  let x = BigInt(Math.floor(Math.sqrt(Number(n))))
  for (;;) {
    const y = (x + n / x) >> 1n
    if (y >= x && x * x <= n && (x + 1n) * (x + 1n) > n) return x
    x = y
  }
}

/** Decimal's to-scientific-string. */
function decimalString(digits: string, exp: number): string {
  const adjusted = exp + digits.length - 1
  if (exp <= 0 && adjusted >= -6) {
    if (exp === 0) return digits
    const point = digits.length + exp
    return point > 0 ? digits.slice(0, point) + '.' + digits.slice(point) : '0.' + '0'.repeat(-point) + digits
  }
  const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits
  return `${mant}E${adjusted >= 0 ? '+' : ''}${adjusted}`
}

export class MathApi extends SimulatedApi {
  readonly className = 'MathAPI'
  override readonly stateless = true
  loadScenario(): void {}
  state(): [string, Val][] {
    return []
  }

  methods(): Record<string, ApiMethod> {
    const guard = (message: string, fn: () => Val): Val => {
      try {
        return dict([['result', fn()]])
      } catch (e) {
        if (e instanceof PyExc && /unsupported operand|not supported between|bad operand|must be real number/.test(e.message)) return dict([['error', message]])
        throw e
      }
    }
    const list = (v: Val): Val[] => iterate(v)
    return {
      absolute_value: m(['number'], ([n]) => guard('Input must be a number', () => abs(n))),
      add: m(['a', 'b'], ([a, b]) => guard('Both inputs must be numbers', () => add(a, b))),
      divide: m(['a', 'b'], ([a, b]) => {
        if (eq(b, 0)) return dict([['error', 'Cannot divide by zero']])
        return guard('Both inputs must be numbers', () => truediv(a, b))
      }),
      imperial_si_conversion: m(['value', 'unit_in', 'unit_out'], ([value, uin, uout]) => {
        const conv: Record<string, number> = {
          cm_to_in: 0.393701,
          in_to_cm: 2.54,
          m_to_ft: 3.28084,
          ft_to_m: 0.3048,
          m_to_yd: 1.09361,
          yd_to_m: 0.9144,
          km_to_miles: 0.621371,
          miles_to_km: 1.60934,
          kg_to_lb: 2.20462,
          lb_to_kg: 0.453592,
          celsius_to_fahrenheit: 1.8,
          fahrenheit_to_celsius: 5 / 9,
        }
        if (!isIntOrFloat(value)) return dict([['error', 'Value must be a number']])
        if (eq(uin, uout)) return dict([['result', value]])
        const key = `${str(uin)}_to_${str(uout)}`
        if (!Object.hasOwn(conv, key)) return dict([['error', `Conversion from '${str(uin)}' to '${str(uout)}' is not supported`]])
        const c = fl(conv[key]!)
        if (uin === 'celsius' && uout === 'fahrenheit') return dict([['result', add(mul(value, c), 32)]])
        if (uin === 'fahrenheit' && uout === 'celsius') return dict([['result', mul(sub(value, 32), c)]])
        return dict([['result', mul(value, c)]])
      }),
      logarithm: m(['value', 'base', 'precision'], ([value, base, precision]) => {
        try {
          return dict([['result', mpLogRatio(num(value), num(base), num(precision))]])
        } catch (e) {
          return dict([['error', e instanceof Error ? e.message : String(e)]])
        }
      }),
      max_value: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot find maximum of an empty list']])
        return guard('All elements in the list must be numbers', () => l.reduce((a, b) => (cmp(b, a, '>') ? b : a)))
      }),
      mean: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot calculate mean of an empty list']])
        return guard('All elements in the list must be numbers', () => truediv(pySum(l), l.length))
      }),
      min_value: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot find minimum of an empty list']])
        return guard('All elements in the list must be numbers', () => l.reduce((a, b) => (cmp(b, a, '<') ? b : a)))
      }),
      multiply: m(['a', 'b'], ([a, b]) => {
        if (!isIntOrFloat(a) || !isIntOrFloat(b)) return dict([['error', 'Both inputs must be numbers']])
        return dict([['result', mul(a, b)]])
      }),
      percentage: m(['part', 'whole'], ([part, whole]) => {
        if (eq(whole, 0)) return dict([['error', 'Whole value cannot be zero']])
        return guard('Both inputs must be numbers', () => mul(truediv(part, whole), 100))
      }),
      power: m(['base', 'exponent'], ([b, e]) => guard('Both inputs must be numbers', () => pow(b, e))),
      round_number: m(['number', opt('decimal_places', 0)], ([n, places]) =>
        guard('First input must be a number, second input must be an integer', () => pyRound(n!, places!)),
      ),
      si_unit_conversion: m(['value', 'unit_in', 'unit_out'], ([value, uin, uout]) => {
        const to: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mm: 0.001, um: 1e-6, nm: 1e-9 }
        if (!isIntOrFloat(value)) return dict([['error', 'Value must be a number']])
        if (typeof uin !== 'string' || typeof uout !== 'string' || !Object.hasOwn(to, uin) || !Object.hasOwn(to, uout)) {
          return dict([['error', `Conversion from '${str(uin)}' to '${str(uout)}' is not supported`]])
        }
        const factor = (u: string): Val => (Number.isInteger(to[u]!) && u !== 'cm' && u !== 'mm' ? to[u]! : fl(to[u]!))
        return dict([['result', mul(mul(value, factor(uin)), fl(1 / num(factor(uout))))]])
      }),
      square_root: m(['number', 'precision'], ([n, p]) => {
        try {
          if (cmp(n, 0, '<')) return dict([['error', 'Cannot calculate square root of a negative number']])
          if (!isIntOrFloat(n) || typeof p !== 'number') throw new PyExc('bad operand')
          return dict([['result', decimalSqrt(num(n), p)]])
        } catch {
          return dict([['error', 'Input must be a number or computation resulted in an invalid operation']])
        }
      }),
      standard_deviation: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot calculate standard deviation of an empty list']])
        return guard('All elements in the list must be numbers', () => {
          const mean = truediv(pySum(l), l.length)
          const variance = truediv(pySum(l.map((x) => pow(sub(x, mean), 2))), l.length)
          return fl(Math.sqrt(num(variance)))
        })
      }),
      subtract: m(['a', 'b'], ([a, b]) => guard('Both inputs must be numbers', () => sub(a, b))),
      sum_values: m(['numbers'], ([ns]) => {
        const l = list(ns!)
        if (l.length === 0) return dict([['error', 'Cannot calculate sum of an empty list']])
        return guard('All elements in the list must be numbers', () => pySum(l))
      }),
    }
  }
}

/** Python's `round(x, n)`: correctly rounded half-even on the exact binary value; ints stay ints. */
function pyRound(x: Val, places: Val): Val {
  if (!isIntOrFloat(x)) throw new PyExc(`type ${typeName(x)} doesn't define __round__ method`)
  if (typeof places !== 'number' || !Number.isInteger(places)) throw new PyExc(`'${typeName(places)}' object cannot be interpreted as an integer`)
  const v = num(x)
  if (!(x instanceof PyFloat) && Number.isInteger(v) && typeof x !== 'boolean') {
    if (places >= 0) return v
    const p = 10 ** -places
    return Math.round(v / p) * p
  }
  // Format with enough digits then round half-even on the decimal expansion of the exact double.
  const text = exactDecimal(v)
  return fl(Number(roundDecimalString(text, places)))
}

function exactDecimal(x: number): string {
  // Doubles have at most 1074 fractional binary digits; toFixed handles up to 100 decimals, enough here.
  return x.toFixed(100).replace(/0+$/, '').replace(/\.$/, '')
}

function roundDecimalString(text: string, places: number): string {
  const neg = text.startsWith('-')
  const t = neg ? text.slice(1) : text
  const [ip, fp = ''] = t.split('.')
  if (places < 0) return String((neg ? -1 : 1) * Math.round(Number(t) / 10 ** -places) * 10 ** -places)
  if (fp.length <= places) return text
  const keep = BigInt(ip! + fp.slice(0, places))
  const rest = fp.slice(places)
  const first = rest.charCodeAt(0) - 48
  const tail = /[1-9]/.test(rest.slice(1))
  const up = first > 5 || (first === 5 && (tail || keep % 2n === 1n))
  const q = String(keep + (up ? 1n : 0n)).padStart(places + 1, '0')
  const out = places === 0 ? q : q.slice(0, -places) + '.' + q.slice(-places)
  return (neg ? '-' : '') + out
}

/**
 * `mpmath.log(value) / mpmath.log(base)` at `mp.dps = precision`, printed as mpf's repr: each step rounded to the
 * working precision in bits, then printed with mpmath's repr digits. Doubles carry the intermediate values, so this
 * is exact up to about 15 digits of precision (the data sets ask for far fewer).
 */
function mpLogRatio(value: number, base: number, dps: number): Val {
  const prec = Math.max(1, Math.round((Math.trunc(dps) + 1) * 3.3219280948873626))
  const r = roundBits(roundBits(Math.log(value), prec) / roundBits(Math.log(base), prec), prec)
  const shown = Math.max(1, Math.round(prec / 3.3219280948873626) - 1)
  const digits = shown === 15 ? 17 : shown + 3
  return new Printed(`mpf('${mpString(r, digits)}')`, 'mpf') as unknown as Val
}

function roundBits(x: number, bits: number): number {
  if (x === 0 || !Number.isFinite(x) || bits >= 53) return x
  const e = Math.floor(Math.log2(Math.abs(x)))
  const scale = 2 ** (bits - 1 - e)
  const y = x * scale
  const fl0 = Math.floor(y)
  const diff = y - fl0
  const r = diff > 0.5 || (diff === 0.5 && fl0 % 2 !== 0) ? fl0 + 1 : fl0
  return r / scale
}

function mpString(x: number, digits: number): string {
  if (x === 0) return '0.0'
  const [mant, expText] = x.toExponential(Math.min(digits, 100) - 1).split('e') as [string, string]
  const exp = Number(expText)
  const neg = mant.startsWith('-')
  let ds = mant.replace('-', '').replace('.', '').replace(/0+$/, '')
  if (ds === '') ds = '0'
  let out: string
  if (exp >= 0 && exp < digits) {
    const ip = ds.slice(0, exp + 1).padEnd(exp + 1, '0')
    const fp = ds.slice(exp + 1)
    out = ip + '.' + (fp === '' ? '0' : fp)
  } else if (exp < 0 && exp > -5) out = '0.' + '0'.repeat(-exp - 1) + ds
  else out = (ds.length > 1 ? ds[0] + '.' + ds.slice(1) : ds + '.0') + 'e' + (exp > 0 ? '+' : '') + exp
  return (neg ? '-' : '') + out
}
