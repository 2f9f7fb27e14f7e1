# Generates src/bfcl/multi-turn/long-context-data.ts from BFCL's long_context.py (gorilla 8db0b7ca).
import ast, json, sys
src = open(sys.argv[1]).read()
tree = ast.parse(src)
data = {}
for node in tree.body:
    data[node.targets[0].id] = ast.literal_eval(node.value)
def mark(x):
    # Python's Ellipsis (the last item of WATCH_LIST_EXTENSION) has no JSON form: a marker object stands for it.
    if x is Ellipsis: return {'__python__': 'Ellipsis'}
    if isinstance(x, list): return [mark(y) for y in x]
    if isinstance(x, dict): return {k: mark(y) for k, y in x.items()}
    return x
data = mark(data)
text = json.dumps(data, ensure_ascii=False, separators=(',', ':'))
out = sys.argv[2]
with open(out, 'w') as f:
    f.write('''/**
 * The long-context scenario data of BFCL's multi-turn APIs: `bfcl_eval/eval_checker/multi_turn_eval/func_source_code/
 * long_context.py` at gorilla commit 8db0b7cabf473adc332a7ea2512d8f8d4dfef8a0, unchanged values, as JSON (Python's
 * json.dumps, so integral floats keep their `.0`; Python's `Ellipsis` is written
 * `{"__python__": "Ellipsis"}`). BFCL is Apache-2.0 (https://github.com/ShishirPatil/gorilla).
 * Generated; do not edit.
 */
export const LONG_CONTEXT_JSON = ''')
    f.write(json.dumps(text, ensure_ascii=False))
    f.write('\n')
