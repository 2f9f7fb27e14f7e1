/** BFCL's TradingBot (trading_bot.py). */
import { PyFloat, type PyDict, type PyKey } from '../../python/operations.js'
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
  iterate,
  mul,
  needStr,
  num,
  str,
  sub,
  toFloat,
  toInt,
  truthy,
  type Val,
} from '../../python/runtime.js'

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
