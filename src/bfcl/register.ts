/**
 * BFCL plugs into the layers below, which never name it: its scorer joins the built-in scorers (describeEval's `bfcl`
 * option, the report's `bfcl_accuracy` and counts, thresholds on them) and `toMatchBfclAnswer` joins the matcher set.
 * Loaded for its effect by every package entry that may meet BFCL: the root entry, `vitest-tool-evals/bfcl`, the
 * setup, matchers and reporter entries and the plugin. It loads nothing of Vitest's runtime.
 */
// Side-effect imports too: they keep BFCL's type augmentations (its scorer's types, `sample.bfcl`, its matcher on
// `expect`) in the declarations of every entry that loads this file.
import './scorer/scorer.js'
import './scorer/matchers.js'
import { registerBuiltinScorer } from '../score/scorers/index.js'
import { addMatchers } from '../matchers/registry.js'
import { bfclScorer } from './scorer/scorer.js'
import { bfclMatchers } from './scorer/matchers.js'

registerBuiltinScorer(bfclScorer)
addMatchers(bfclMatchers)
