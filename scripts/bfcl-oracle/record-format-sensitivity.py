# Runs BFCL's own OpenAICompletionsHandler (gorilla 8db0b7ca) in prompting mode on the first LIMIT original entries
# of format_sensitivity (each under the 26 prompt formats), with a stub OpenAI client that records each request and
# answers with a call built from the entry's first possible answer in the format's return syntax (varied by entry:
# correct, a wrong value, text that does not decode, a missing <TOOLCALL> tag), then BFCL's own evaluate.
# usage: record-format-sensitivity.py LIMIT OUT
import os, sys, json, types, copy, pathlib, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
limit, out_file = int(sys.argv[1]), sys.argv[2]

class Obj:
    def __init__(self, raw):
        self._raw = raw
        for k, v in raw.items():
            setattr(self, k, Obj(v) if isinstance(v, dict) else [Obj(x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v)
state = {}
class Completions:
    def create(self, **kwargs):
        state['requests'].append(copy.deepcopy(kwargs))
        return Obj({'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': state['reply']}, 'finish_reason': 'stop'}], 'usage': {'prompt_tokens': 10, 'completion_tokens': 2}})
class OpenAI:
    def __init__(self, **kw): self.chat = types.SimpleNamespace(completions=Completions())
openai = types.ModuleType('openai'); openai.__path__ = []; openai.OpenAI = OpenAI; openai.RateLimitError = type('RateLimitError', (Exception,), {})
sys.modules['openai'] = openai

from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.model_handler.utils import parse_prompt_variation_params
from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
MODEL_CONFIG_MAPPING['my-model'] = ModelConfig(model_name='my-model', display_name='my-model', url='N/A', org='N/A', license='N/A', model_handler=OpenAICompletionsHandler, input_price=None, output_price=None, is_fc_model=False, underscore_to_dot=False)
from bfcl_eval.eval_checker import eval_runner
handler = OpenAICompletionsHandler(model_name='my-model', temperature=0.001, registry_name='my-model', is_fc_model=False)
entries = load_dataset_entry('format_sensitivity')[: limit * 26]
truth = load_ground_truth_entry('format_sensitivity')[: limit * 26]

def first_value(values):
    for v in values:
        if v != '': return v
    return None
def xml_type(v):
    return 'boolean' if isinstance(v, bool) else 'integer' if isinstance(v, int) else 'float' if isinstance(v, float) else 'array' if isinstance(v, list) else 'dict' if isinstance(v, dict) else 'string'
def xml_value(v):
    if isinstance(v, bool): return 'true' if v else 'false'
    if isinstance(v, (list, dict)): return repr(v)
    return str(v)
def esc(s, attr=False):
    s = s.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    return s.replace('"', '&quot;') if attr else s
def reply(gt, config, k):
    ret, tag, _, _, _ = parse_prompt_variation_params(config)
    calls = []
    for call in gt:
        for name, params in call.items():
            args = {p: first_value(vs) for p, vs in params.items() if first_value(vs) is not None}
            if k % 5 == 1 and args:  # a wrong value
                p0 = next(iter(args)); args[p0] = 'WRONG' if not isinstance(args[p0], str) else args[p0] + ' x'
            calls.append((name, args))
    if k % 5 == 2: return 'I cannot call any function for this.'
    if ret == 'python': text = '[' + ', '.join(f"{n}({', '.join(f'{p}={v!r}' for p, v in a.items())})" for n, a in calls) + ']'
    elif ret == 'json': text = '```json\n' + json.dumps([{'function': n, 'parameters': a} for n, a in calls]) + '\n```'
    elif ret == 'verbose_xml': text = '<functions>' + ''.join(f'<function name="{n}"><params>' + ''.join(f'<param name="{p}" value="{esc(xml_value(v), True)}" type="{xml_type(v)}"/>' for p, v in a.items()) + '</params></function>' for n, a in calls) + '</functions>'
    else: text = '<functions>' + ''.join(f'<function name="{n}">' + ''.join(f'<param name="{p}" type="{xml_type(v)}">{esc(xml_value(v))}</param>' for p, v in a.items()) + '</function>' for n, a in calls) + '</functions>'
    if tag and k % 5 != 3: text = '<TOOLCALL>' + text + '</TOOLCALL>'
    return text

out, written = [], []
for i, (e, t) in enumerate(zip(entries, truth)):
    config = e['id'].split(':')[1]
    state.update(requests=[], reply=reply(t['ground_truth'], config, i // 26 + i))
    result, meta = handler.inference(copy.deepcopy(e), include_input_log=False, exclude_state_log=True)
    out.append({'id': e['id'], 'reply': state['reply'], 'requests': state['requests'], 'result': result})
    written.append({'id': e['id'], 'result': result, **meta})
root = pathlib.Path(tempfile.mkdtemp())
handler.write(written, result_dir=root / 'result')
eval_runner.main(['my-model'], ['format_sensitivity'], root / 'result', root / 'score', partial_eval=True)
lines = [json.loads(l) for l in next((root / 'score').rglob('*_format_sensitivity_score.json')).read_text().splitlines()]
score = {**lines[0], 'failing': [(l['id'], l['error_type']) for l in lines[1:]]}
json.dump({'category': 'format_sensitivity', 'mode': 'prompting', 'model': 'my-model', 'limit': limit, 'entries': out, 'score': score}, open(out_file, 'w'), indent=1, ensure_ascii=False)
