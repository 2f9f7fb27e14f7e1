/** BFCL's TravelAPI (travel_booking.py). */
import { PyFloat, type PyDict, type PyKey } from '../../python/operations.js'
import { SimulatedApi, get, m, opt, type ApiMethod } from './api.js'
import { PyExc, PyRandom, add, cmp, deepCopy, dict, eq, fl, getKey, hasKey, mul, needStr, num, str, sub, toFloat, truediv, type Val } from '../../python/runtime.js'

// Route → base cost (the reference's table, as facts).
const BASE_COSTS: Record<string, number> = {
  'SFO|LAX': 200, 'SFO|JFK': 500, 'SFO|ORD': 400, 'SFO|BOS': 450, 'SFO|RMS': 300, 'SFO|SBK': 350, 'SFO|MPC': 370, 'SFO|SVP': 320,
  'SFO|SHD': 330, 'SFO|SSV': 340, 'SFO|OKD': 360, 'SFO|WLB': 310, 'SFO|CRH': 380, 'SFO|ATV': 390, 'SFO|PHV': 420, 'SFO|GFD': 430,
  'SFO|CIA': 700, 'LAX|SFO': 100, 'LAX|JFK': 600, 'LAX|ORD': 500, 'LAX|BOS': 550, 'LAX|RMS': 310, 'LAX|SBK': 320, 'LAX|MPC': 330,
  'LAX|SVP': 340, 'LAX|SHD': 350, 'LAX|SSV': 360, 'LAX|OKD': 370, 'LAX|WLB': 380, 'LAX|CRH': 390, 'LAX|ATV': 400, 'LAX|PHV': 410,
  'LAX|GFD': 420, 'LAX|HND': 430, 'JFK|ORD': 300, 'JFK|BOS': 250, 'JFK|RMS': 450, 'JFK|SBK': 460, 'JFK|MPC': 470, 'JFK|SVP': 480,
  'JFK|SHD': 490, 'JFK|SSV': 500, 'JFK|OKD': 510, 'JFK|WLB': 520, 'JFK|CRH': 530, 'JFK|ATV': 540, 'JFK|PHV': 550, 'JFK|GFD': 560,
  'JFK|LAX': 570, 'JFK|HND': 800, 'JFK|PVG': 950, 'JFK|PEK': 1000, 'ORD|LAX': 180, 'ORD|BOS': 200, 'ORD|RMS': 350, 'ORD|SBK': 360,
  'ORD|MPC': 370, 'ORD|SVP': 380, 'ORD|SHD': 390, 'ORD|SSV': 400, 'ORD|OKD': 410, 'ORD|WLB': 420, 'ORD|CRH': 430, 'ORD|ATV': 440,
  'ORD|PHV': 450, 'ORD|GFD': 460, 'BOS|RMS': 400, 'BOS|SBK': 410, 'BOS|MPC': 420, 'BOS|SVP': 430, 'BOS|SHD': 440, 'BOS|SSV': 450,
  'BOS|OKD': 460, 'BOS|WLB': 470, 'BOS|CRH': 480, 'BOS|ATV': 490, 'BOS|PHV': 500, 'BOS|GFD': 510, 'RMS|BOS': 200, 'RMS|JFK': 210,
  'RMS|SBK': 220, 'RMS|MPC': 230, 'RMS|SVP': 240, 'RMS|SHD': 250, 'RMS|SSV': 260, 'RMS|OKD': 270, 'RMS|WLB': 280, 'RMS|CRH': 290,
  'RMS|ATV': 300, 'RMS|PHV': 310, 'RMS|GFD': 320, 'RMS|LAX': 330, 'SBK|MPC': 200, 'SBK|SVP': 210, 'SBK|SHD': 220, 'SBK|SSV': 230,
  'SBK|OKD': 240, 'SBK|WLB': 250, 'SBK|CRH': 260, 'SBK|ATV': 270, 'SBK|PHV': 280, 'SBK|GFD': 290, 'MPC|SVP': 210, 'MPC|SHD': 220,
  'MPC|SSV': 230, 'MPC|OKD': 240, 'MPC|WLB': 250, 'MPC|CRH': 260, 'MPC|ATV': 270, 'MPC|PHV': 280, 'MPC|GFD': 290, 'SVP|SHD': 230,
  'SVP|SSV': 240, 'SVP|OKD': 250, 'SVP|WLB': 260, 'SVP|CRH': 270, 'SVP|ATV': 280, 'SVP|PHV': 290, 'SVP|GFD': 300, 'SHD|SSV': 220,
  'SHD|OKD': 230, 'SHD|WLB': 240, 'SHD|CRH': 250, 'SHD|ATV': 260, 'SHD|PHV': 270, 'SHD|GFD': 280, 'SSV|OKD': 240, 'SSV|WLB': 250,
  'SSV|CRH': 260, 'SSV|ATV': 270, 'SSV|PHV': 280, 'SSV|GFD': 290, 'OKD|WLB': 230, 'OKD|CRH': 240, 'OKD|ATV': 250, 'OKD|PHV': 260,
  'OKD|GFD': 270, 'WLB|CRH': 250, 'WLB|ATV': 260, 'WLB|PHV': 270, 'WLB|GFD': 280, 'CRH|ATV': 240, 'CRH|PHV': 250, 'CRH|GFD': 260,
  'CRH|SFO': 270, 'CRH|RMS': 280, 'CRH|HKG': 290, 'CRH|JFK': 300, 'ATV|PHV': 230, 'ATV|GFD': 240, 'PHV|GFD': 220, 'LHR|CDG': 100,
  'OKD|LAX': 220,
}
const AIRPORTS_BY_CITY: Record<string, string> = {
  'Rivermist': 'RMS', 'Stonebrook': 'SBK', 'Maplecrest': 'MPC', 'Silverpine': 'SVP', 'Shadowridge': 'SHD', 'London': 'LHR',
  'Paris': 'CDG', 'Sunset Valley': 'SSV', 'Oakendale': 'OKD', 'Willowbend': 'WLB', 'Crescent Hollow': 'CRH', 'Autumnville': 'ATV',
  'Pinehaven': 'PHV', 'Greenfield': 'GFD', 'San Francisco': 'SFO', 'Los Angeles': 'LAX', 'New York': 'JFK', 'Chicago': 'ORD',
  'Boston': 'BOS', 'Beijing': 'PEK', 'Hong Kong': 'HKG', 'Rome': 'CIA', 'Tokyo': 'HND',
}

const ALL_AIRPORTS = ['RMS', 'SBK', 'MPC', 'SVP', 'SHD', 'CDG', 'LHR', 'SSV', 'OKD', 'WLB', 'PEK', 'HND', 'HKG', 'CIA', 'CRH', 'ATV', 'PHV', 'GFD', 'SFO', 'LAX', 'JFK', 'ORD', 'BOS']

const EXCHANGE_RATES: [string, string, number][] = [
  ['USD', 'RMB', 7],
  ['USD', 'EUR', 0.8],
  ['USD', 'JPY', 110],
  ['USD', 'GBP', 0.7],
  ['USD', 'CAD', 1.3],
  ['USD', 'AUD', 1.4],
  ['USD', 'INR', 70],
  ['USD', 'RUB', 60],
  ['USD', 'BRL', 3.8],
  ['USD', 'MXN', 20],
]

/** `datetime.strptime(s, '%Y-%m-%d')` accepts it (one- or two-digit month and day, a real date). */
function isDate(s: string): { y: number; m: number; d: number } | undefined {
  const mt = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s)
  if (!mt) return undefined
  const [y, mo, d] = [Number(mt[1]), Number(mt[2]), Number(mt[3])]
  const t = new Date(Date.UTC(y, mo - 1, d))
  if (mo < 1 || mo > 12 || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return undefined
  return { y, m: mo, d }
}

export class TravelApi extends SimulatedApi {
  readonly className = 'TravelAPI'
  private random = new PyRandom(141053)
  creditCardList: PyDict = new Map()
  bookingRecord: PyDict = new Map()
  accessToken: Val = null
  tokenType: Val = null
  tokenExpiresIn: Val = null
  tokenScope: Val = null
  userFirstName: Val = null
  userLastName: Val = null
  budgetLimit: Val = null
  longContext = false
  private flightCostLookup: PyDict = new Map()

  loadScenario(c: PyDict, longContext: boolean): void {
    this.random = new PyRandom(Number(get(c, 'random_seed', 141053)))
    this.creditCardList = get(c, 'credit_card_list', new Map()) as PyDict
    this.bookingRecord = get(c, 'booking_record', new Map()) as PyDict
    this.accessToken = get(c, 'access_token', null)
    this.tokenType = get(c, 'token_type', null)
    this.tokenExpiresIn = get(c, 'token_expires_in', null)
    this.tokenScope = get(c, 'token_scope', null)
    this.userFirstName = get(c, 'user_first_name', null)
    this.userLastName = get(c, 'user_last_name', null)
    this.budgetLimit = get(c, 'budget_limit', null)
    this.longContext = longContext
    if (longContext) {
      // The reference adds the module's own dicts (not copies): later changes to them are shared by the session.
      const data = this.session.longContext()
      for (const [id, card] of data.creditCardExtension) if (!this.creditCardList.has(id)) this.creditCardList.set(id, card)
      for (const [id, booking] of data.bookingRecordExtension) if (!this.bookingRecord.has(id)) this.bookingRecord.set(id, booking)
    }
  }

  state(): [string, Val][] {
    return [
      ['credit_card_list', this.creditCardList],
      ['booking_record', this.bookingRecord],
      ['access_token', this.accessToken],
      ['token_type', this.tokenType],
      ['token_expires_in', this.tokenExpiresIn],
      ['token_scope', this.tokenScope],
      ['user_first_name', this.userFirstName],
      ['user_last_name', this.userLastName],
      ['budget_limit', this.budgetLimit],
      ['long_context', this.longContext],
    ]
  }

  private flightCost(from: Val, to: Val, date: Val, cls: Val): Val {
    const key = `${str(from)}|${str(to)}`
    if (typeof from !== 'string' || typeof to !== 'string' || !Object.hasOwn(BASE_COSTS, key)) throw new PyExc('No available route for the given airports.')
    const factor = cls === 'economy' ? 1 : cls === 'business' ? 2 : cls === 'first' ? 5 : undefined
    if (factor === undefined) throw new PyExc('Invalid travel class. Options are: economy, business, first.')
    let digitSum = 0
    for (const ch of needStr(date, '__iter__')) if (/\p{Nd}/u.test(ch)) digitSum += Number(ch)
    const multiplier = digitSum % 2 === 0 ? 2 : 1
    if (this.longContext) {
      // Every route's cost, each cached under its own key.
      this.flightCostLookup = new Map()
      const costs: Val[] = []
      for (const [route, base] of Object.entries(BASE_COSTS)) {
        const [frm, dest] = route.split('|')
        const routeCost = new PyFloat(base * factor * multiplier)
        this.flightCostLookup.set(`${frm}|${dest}|${str(cls)}|${str(date)}`, dict([['cost', routeCost]]))
        costs.push(routeCost)
      }
      return dict([['travel_cost_list', costs]])
    }
    const cost = new PyFloat(BASE_COSTS[key]! * factor * multiplier)
    this.flightCostLookup = dict([[`${str(from)}|${str(to)}|${str(cls)}|${str(date)}`, dict([['cost', cost]])]])
    return dict([['travel_cost_list', [cost]]])
  }

  methods(): Record<string, ApiMethod> {
    const expired = () => eq(this.tokenExpiresIn, 0)
    const badToken = (t: Val) => !eq(t, this.accessToken)
    return {
      authenticate_travel: m(['client_id', 'client_secret', 'refresh_token', 'grant_type', 'user_first_name', 'user_last_name'], (a) => {
        this.tokenExpiresIn = 2
        this.accessToken = String(this.random.randint(100000, 999999))
        this.tokenType = 'Bearer'
        this.tokenScope = a[3]!
        this.userFirstName = a[4]!
        this.userLastName = a[5]!
        return dict([['expires_in', 2], ['access_token', this.accessToken], ['token_type', 'Bearer'], ['scope', a[3]!]])
      }),
      book_flight: m(['access_token', 'card_id', 'travel_date', 'travel_from', 'travel_to', 'travel_class'], ([token, card, date, from, to, cls]) => {
        const fail = (e: string) => dict([['booking_status', false], ['error', e]])
        if (expired()) return fail('Token expired')
        if (badToken(token!)) return fail('Invalid access token')
        if (!hasKey(this.creditCardList, card)) return fail('Card not registered')
        const cardInfo = getKey(this.creditCardList, card) as PyDict
        if (!cardInfo.has('balance')) return fail('Balance not found')
        if (!ALL_AIRPORTS.some((x) => eq(x, from))) return fail(`Invalid departure airport code: ${str(from)}`)
        if (!ALL_AIRPORTS.some((x) => eq(x, to))) return fail(`Invalid destination airport code: ${str(to)}`)
        if (!isDate(needStr(date, 'strptime'))) return fail('Invalid date format. Use YYYY-MM-DD.')
        if (!['economy', 'business', 'first'].some((x) => eq(x, cls))) {
          return fail(`Invalid travel class. Must be one of {'economy', 'business', 'first'}`)
        }
        let cost: Val
        try {
          this.flightCost(from!, to!, date!, cls!)
          const entry = this.flightCostLookup.get(`${str(from)}|${str(to)}|${str(cls)}|${str(date)}`) as PyDict | undefined
          if (entry === undefined) return fail('No available route for the given parameters')
          cost = entry.get('cost')!
        } catch (e) {
          if (e instanceof PyExc) return fail(e.message)
          throw e
        }
        if (cmp(cardInfo.get('balance'), cost, '<')) return fail('Insufficient funds')
        if (this.budgetLimit !== null && cmp(cardInfo.get('balance'), this.budgetLimit, '<')) return fail('Balance is less than budget limit')
        cardInfo.set('balance', sub(cardInfo.get('balance'), cost))
        const bookingId = String(this.random.randint(1000000, 9999999))
        const transactionId = String(this.random.randint(10000000, 99999999))
        this.bookingRecord.set(
          bookingId,
          dict([['card_id', card!], ['travel_date', date!], ['travel_from', from!], ['travel_to', to!], ['travel_class', cls!], ['travel_cost', cost], ['transaction_id', transactionId]]),
        )
        const history = this.longContext ? this.bookingRecord : new Map()
        return dict([['booking_id', bookingId], ['transaction_id', transactionId], ['booking_status', true], ['booking_history', history]])
      }),
      cancel_booking: m(['access_token', 'booking_id'], ([token, id]) => {
        const fail = (e: string) => dict([['cancel_status', false], ['error', e]])
        if (expired()) return fail('Token expired')
        if (badToken(token!)) return fail('Invalid access token')
        if (!hasKey(this.bookingRecord, id)) return fail('Booking not found')
        const booking = getKey(this.bookingRecord, id) as PyDict
        const card = getKey(this.creditCardList, booking.get('card_id'))
        if (!(card instanceof Map)) throw new PyExc(repr_(booking.get("card_id") ?? null))
        card.set('balance', add(card.get('balance'), booking.get('travel_cost')))
        this.bookingRecord.delete(id as PyKey)
        return dict([['cancel_status', true]])
      }),
      compute_exchange_rate: m(['base_currency', 'target_currency', 'value'], ([base, target, value]) => {
        for (const [a, b, rate] of EXCHANGE_RATES) {
          const r = Number.isInteger(rate) ? rate : fl(rate)
          if (eq(base, a) && eq(target, b)) return dict([['exchanged_value', toFloat(mul(value, r))]])
          if (eq(base, b) && eq(target, a)) return dict([['exchanged_value', pyRound2(truediv(value, r))]])
        }
        throw new PyExc('No available exchange rate for the given currencies.')
      }),
      contact_customer_support: m(['booking_id', 'message'], ([id]) => {
        if (!hasKey(this.bookingRecord, id)) return dict([['error', 'Booking not found']])
        return dict([['customer_support_message', 'Thank you for contacting customer support. Your message has been received and we will get back to you shortly.']])
      }),
      get_all_credit_cards: m([], () => dict([['credit_card_list', this.creditCardList]])),
      get_booking_history: m(['access_token'], ([token]) => {
        if (expired()) return dict([['error', 'Token expired']])
        if (badToken(token!)) return dict([['error', 'Invalid access token']])
        return dict([['booking_history', deepCopy(this.bookingRecord)]])
      }),
      get_budget_fiscal_year: m([opt('lastModifiedAfter', null), opt('includeRemoved', null)], () => dict([['budget_fiscal_year', '2018']])),
      get_credit_card_balance: m(['access_token', 'card_id'], ([token, card]) => {
        if (expired()) return dict([['error', 'Token expired']])
        if (badToken(token!)) return dict([['error', 'Invalid access token']])
        if (!hasKey(this.creditCardList, card)) {
          return dict([['error', "Card not registered. Here are a list of card_id's: " + repr_([...this.creditCardList.keys()])]])
        }
        return dict([['card_balance', (getKey(this.creditCardList, card) as PyDict).get('balance')!]])
      }),
      get_flight_cost: m(['travel_from', 'travel_to', 'travel_date', 'travel_class'], ([from, to, date, cls]) => this.flightCost(from!, to!, date!, cls!)),
      get_nearest_airport_by_city: m(['location'], ([loc]) => dict([['nearest_airport', typeof loc === 'string' && Object.hasOwn(AIRPORTS_BY_CITY, loc) ? AIRPORTS_BY_CITY[loc]! : 'Unknown']])),
      list_all_airports: m([], () => [...ALL_AIRPORTS]),
      purchase_insurance: m(['access_token', 'insurance_type', 'booking_id', 'insurance_cost', 'card_id'], ([token, , id, cost, card]) => {
        const fail = (e: string) => dict([['insurance_status', false], ['error', e]])
        if (expired()) return fail('Token expired')
        if (badToken(token!)) return fail('Invalid access token')
        if (this.budgetLimit !== null && cmp(this.budgetLimit, cost, '<')) return fail('Exceeded budget limit')
        if (!hasKey(this.bookingRecord, id)) return fail('Booking not found')
        if (!hasKey(this.creditCardList, card)) return fail('Credit card not registered')
        const info = getKey(this.creditCardList, card) as PyDict
        info.set('balance', sub(info.get('balance'), cost))
        return dict([['insurance_id', String(this.random.randint(100000000, 999999999))], ['insurance_status', true]])
      }),
      register_credit_card: m(['access_token', 'card_number', 'expiration_date', 'cardholder_name', 'card_verification_number'], ([token, number, exp, holder, cvv]) => {
        if (this.tokenExpiresIn === null) return dict([['error', 'Token not initialized']])
        if (expired()) return dict([['error', 'Token expired']])
        if (badToken(token!)) return dict([['error', 'Invalid access token']])
        if (hasKey(this.creditCardList, number)) return dict([['error', 'Card already registered']])
        const id = String(this.random.randint(100000000000, 999999999999))
        this.creditCardList.set(
          id,
          dict([['card_number', number!], ['expiration_date', exp!], ['cardholder_name', holder!], ['card_verification_number', cvv!], ['balance', this.random.randint(10000, 99999)]]),
        )
        return dict([['card_id', id]])
      }),
      retrieve_invoice: m(['access_token', opt('booking_id', null), opt('insurance_id', null)], ([token, id]) => {
        if (expired()) return dict([['error', 'Token expired']])
        if (badToken(token!)) return dict([['error', 'Invalid access token']])
        if (!hasKey(this.bookingRecord, id)) return dict([['error', 'Booking not found']])
        const b = getKey(this.bookingRecord, id) as PyDict
        const field = (k: string) => {
          if (!b.has(k)) throw new PyExc(`'${k}'`)
          return b.get(k)!
        }
        return dict([
          [
            'invoice',
            dict([
              ['booking_id', id!],
              ['travel_date', field('travel_date')],
              ['travel_from', field('travel_from')],
              ['travel_to', field('travel_to')],
              ['travel_class', field('travel_class')],
              ['travel_cost', field('travel_cost')],
              ['transaction_id', field('transaction_id')],
            ]),
          ],
        ])
      }),
      set_budget_limit: m(['access_token', 'budget_limit'], ([token, limit]) => {
        if (expired()) return dict([['error', 'Token expired']])
        if (badToken(token!)) return dict([['error', 'Invalid access token']])
        const v = toFloat(limit)
        this.budgetLimit = v
        return dict([['budget_limit', v]])
      }),
      travel_get_login_status: m([], () => dict([['status', !(this.tokenExpiresIn === null || eq(this.tokenExpiresIn, 0))]])),
      verify_traveler_information: m(['first_name', 'last_name', 'date_of_birth', 'passport_number'], ([first, last, dob, passport]) => {
        const fail = (e: string) => dict([['verification_status', false], ['verification_failure', e]])
        if (!eq(this.userFirstName, first) || !eq(this.userLastName, last)) {
          return fail(`Cannot book flight information for another user.Expected ${str(this.userFirstName)} ${str(this.userLastName)}, got ${str(first)} ${str(last)}`)
        }
        const birth = isDate(needStr(dob, 'strptime'))
        if (!birth) return fail('Invalid date of birth format. Please use YYYY-MM-DD.')
        const today = new Date()
        const [ty, tm, td] = [today.getFullYear(), today.getMonth() + 1, today.getDate()]
        const age = ty - birth.y - (tm < birth.m || (tm === birth.m && td < birth.d) ? 1 : 0)
        if (age < 18) return fail('Traveler must be at least 18 years old.')
        if (!needStr(passport, 'startswith').startsWith('US')) return fail('Passport must be issued by the United States.')
        return dict([['verification_status', true]])
      }),
    }
  }
}

function repr_(v: Val): string {
  return str([v]).slice(1, -1)
}

/** `round(x, 2)` of a float. */
function pyRound2(v: Val): Val {
  const x = num(v)
  const s = x.toFixed(20)
  // Correct rounding on the exact binary value: compare against the two neighbours.
  const lo = Math.floor(x * 100) / 100
  const hi = Math.ceil(x * 100) / 100
  if (lo === hi) return fl(lo)
  const dl = Math.abs(x - lo)
  const dh = Math.abs(hi - x)
  void s
  return fl(dl < dh ? lo : dh < dl ? hi : Math.round(lo * 100) % 2 === 0 ? lo : hi)
}
