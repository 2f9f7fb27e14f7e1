/**
 * BFCL's long-context scenario data (long_context.py) as the simulated APIs use it. The reference's APIs put these
 * module-level objects into their state and results by reference, and some calls change them (a booked flight on an
 * extension card lowers that card's balance in the module's dict; the weather call overwrites a key of the module's
 * dict): those changes persist for the rest of the process. So one copy is made per scoring session and every
 * instance of the session shares it, as every instance of the reference's process shares the module.
 */
import { parseJson } from '../../calls/json.js'
import { fromJson, type PyDict, type PyValue } from '../../python/operations.js'
import { asVal, type PyObject, type Val } from '../../python/runtime.js'
import { LONG_CONTEXT_JSON } from './long-context-data.js'

/** Python's `Ellipsis` (the last item of the reference's watch-list extension). */
export const ELLIPSIS: PyObject = Object.freeze({
  pyTypeName: 'ellipsis',
  pyRepr: () => 'Ellipsis',
  pyEquals(other: unknown) {
    return other === ELLIPSIS
  },
})

export interface LongContextData {
  watchListExtension: Val[]
  transactionHistoryExtension: Val[]
  ma5Extension: Val[]
  ma20Extension: Val[]
  technologyExtension: Val[]
  automobileExtension: Val[]
  orderDetailExtension: PyDict
  fileContentExtension: string
  populateFileExtension: string[]
  carStatusMetadataExtension: string
  longWeatherExtension: PyDict
  parkingBrakeInstruction: string
  intermediaryCities: Val[]
  creditCardExtension: PyDict
  bookingRecordExtension: PyDict
  filesTailUsed: string[]
}

function restoreEllipsis(v: PyValue): Val {
  if (Array.isArray(v)) return v.map(restoreEllipsis)
  if (v instanceof Map) {
    if (v.size === 1 && v.get('__python__') === 'Ellipsis') return asVal(ELLIPSIS)
    return new Map([...v].map(([k, x]) => [k, restoreEllipsis(x)]))
  }
  return v
}

/** A fresh, mutable copy of the data (one per scoring session). */
export function loadLongContextData(): LongContextData {
  const parsed = parseJson(LONG_CONTEXT_JSON)
  if (!parsed.ok) throw new Error(`long-context data: ${parsed.error}`)
  const all = restoreEllipsis(fromJson(parsed.value, parsed.floatPaths)!) as PyDict
  const list = (k: string) => all.get(k) as Val[]
  const dict = (k: string) => all.get(k) as PyDict
  const text = (k: string) => all.get(k) as string
  return {
    watchListExtension: list('WATCH_LIST_EXTENSION'),
    transactionHistoryExtension: list('TRANSACTION_HISTORY_EXTENSION'),
    ma5Extension: list('MA_5_EXTENSION'),
    ma20Extension: list('MA_20_EXTENSION'),
    technologyExtension: list('TECHNOLOGY_EXTENSION'),
    automobileExtension: list('AUTOMOBILE_EXTENSION'),
    orderDetailExtension: dict('ORDER_DETAIL_EXTENSION'),
    fileContentExtension: text('FILE_CONTENT_EXTENSION'),
    populateFileExtension: list('POPULATE_FILE_EXTENSION') as string[],
    carStatusMetadataExtension: text('CAR_STATUS_METADATA_EXTENSION'),
    longWeatherExtension: dict('LONG_WEATHER_EXTENSION'),
    parkingBrakeInstruction: text('PARKING_BRAKE_INSTRUCTION'),
    intermediaryCities: list('INTERMEDIARY_CITIES'),
    creditCardExtension: dict('CREDIT_CARD_EXTENSION'),
    bookingRecordExtension: dict('BOOKING_RECORD_EXTENSION'),
    filesTailUsed: list('FILES_TAIL_USED') as string[],
  }
}
