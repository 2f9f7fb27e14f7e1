export type { ChatMessage, DataEntry, DataOptions, DataSource, Sample, SampleError } from './types.js'
export { formatSampleError, loadArray, loadData, loadDataAsync, loadJsonl, loadSamples, parseJsonlSamples } from './load.js'
export { hubConfigFromEnv, loadHfDataset, type HubConfig } from './hf.js'
export { DEFAULT_HUB_LIMITS, type HubLimits } from './hub-limits.js'
