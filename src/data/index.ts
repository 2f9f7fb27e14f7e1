export type { ChatMessage, DataEntry, DataSource, Sample, SampleError } from './types.js'
export { formatSampleError, loadArray, loadData, loadJsonl, loadSamples, parseJsonlSamples } from './load.js'
