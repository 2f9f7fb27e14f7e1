# Runs BFCL's own OpenAICompletionsHandler (gorilla 8db0b7ca) on agentic entries, as its generation runs them
# (load_dataset_entry, the memory prerequisites in sort_key order, populate_initial_settings_*), with a stub OpenAI
# client that records each request and answers from a script, SerpAPI and requests.get answering from a recorded
# web-search file, and rank_bm25 0.2.2 (BFCL's pin) loaded from the unzipped wheel in $RANK_BM25.
# usage: record-agentic.py CATEGORY LIMIT SCRIPT RECORDED_WEB OUT [fc|prompting]
import os, sys, json, types, copy, math, pathlib, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
import numpy as np
category, limit, script_file, web_file, out_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
mode = sys.argv[6] if len(sys.argv) > 6 else 'fc'

class Obj:
    def __init__(self, raw):
        self._raw = raw
        for k, v in raw.items():
            setattr(self, k, Obj(v) if isinstance(v, dict) else [Obj(x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v)
def plain(v):
    if isinstance(v, Obj): return v._raw
    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list): return [plain(x) for x in v]
    return v

SCRIPT = json.load(open(script_file))  # {id: [reply message, ...]}; '{{answer}}' is the entry's first possible answer
ANSWERS = {}
for name in ['BFCL_v4_web_search.json', 'BFCL_v4_memory.json']:
    for l in open('/work/shared/bfcl/agentic/possible_answer/' + name):
        a = json.loads(l); ANSWERS[a['id']] = a['ground_truth'][0]
def answer_of(entry_id):
    base = 'memory' if entry_id.startswith('memory') else 'web_search'
    return ANSWERS.get(base + entry_id[len(entry_id.rsplit('_', 1)[0]):], '')
state = {}
class Completions:
    def create(self, **kwargs):
        state['requests'].append(plain(copy.deepcopy(kwargs)))
        replies = SCRIPT.get(state['key'], [])
        msg = replies[state['step']] if state['step'] < len(replies) else {'role': 'assistant', 'content': 'Done.'}
        msg = json.loads(json.dumps(msg).replace('{{answer}}', json.dumps(answer_of(state['id']))[1:-1]))
        state['step'] += 1
        return Obj({'choices': [{'index': 0, 'message': msg, 'finish_reason': 'stop'}], 'usage': {'prompt_tokens': 10, 'completion_tokens': 2}})
class OpenAI:
    def __init__(self, **kw): self.chat = types.SimpleNamespace(completions=Completions())
openai = types.ModuleType('openai'); openai.__path__ = []; openai.OpenAI = OpenAI; openai.RateLimitError = type('RateLimitError', (Exception,), {})
sys.modules['openai'] = openai

WEB = json.load(open(web_file))
class GoogleSearch:
    def __init__(self, params): self.params = params
    def get_dict(self):
        r = WEB['search'][self.params['kl']][self.params['q']]
        if list(r) == ['error']: raise Exception(r['error'])
        return copy.deepcopy(r)
serpapi = types.ModuleType('serpapi'); serpapi.GoogleSearch = GoogleSearch; sys.modules['serpapi'] = serpapi

# rank_bm25 itself, the release BFCL pins (0.2.2: `pip download rank_bm25==0.2.2 --no-deps`, the wheel unzipped into
# RANK_BM25): Debian has no package for it.
import importlib.util
_spec = importlib.util.spec_from_file_location('rank_bm25', os.path.join(os.environ['RANK_BM25'], 'rank_bm25.py'))
rank_bm25 = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(rank_bm25)
sys.modules['rank_bm25'] = rank_bm25

from bfcl_eval.eval_checker.multi_turn_eval.func_source_code import web_search as ws
class Resp:
    def __init__(self, text): self.text = text
    def raise_for_status(self): pass
def fake_get(url, **kw):
    page = WEB['fetch'][url]
    if 'error' in page: raise Exception(page['error'])
    return Resp(page['raw'])
ws.requests = types.SimpleNamespace(get=fake_get)

from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import load_dataset_entry, sort_key, populate_initial_settings_for_memory_test_cases, populate_initial_settings_for_web_search_test_cases, is_memory_prereq
handler = OpenAICompletionsHandler(model_name='my-model', temperature=0.001, registry_name='my-model', is_fc_model=(mode == 'fc'))
entries = load_dataset_entry(category)
questions = [e for e in entries if not is_memory_prereq(e['id'])][:limit]
scenarios = {e.get('scenario') for e in questions}
prereqs = [e for e in entries if is_memory_prereq(e['id']) and e.get('scenario') in scenarios]
result_dir = pathlib.Path(tempfile.mkdtemp()) / 'result' / 'my-model'
run = populate_initial_settings_for_web_search_test_cases(populate_initial_settings_for_memory_test_cases(prereqs + questions, result_dir))
out, written = [], []
for e in sorted(run, key=sort_key):
    # The script is keyed by the entry's id; web_search_no_snippet uses web_search_base's replies.
    key = e['id'].replace('web_search_no_snippet', 'web_search_base')
    state.update(id=e['id'], key=key, requests=[], step=0)
    result, meta = handler.inference(copy.deepcopy(e), include_input_log=False, exclude_state_log=True)
    written.append({'id': e['id'], 'result': result, **meta})
    # The answer the script inserted is BFCL's data: the fixture keeps the placeholder.
    text, ans = json.dumps(result), json.dumps(answer_of(e['id']))[1:-1]
    out.append({'id': e['id'], 'requests': state['requests'], 'result': json.loads(text.replace(ans, '{{answer}}') if ans else text)})
snapshots = {}
for f in sorted((result_dir).rglob('*_final.json')):
    snapshots[f.name] = f.read_text()
# BFCL's own evaluate over BFCL's own results: the score the run must reproduce.
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
MODEL_CONFIG_MAPPING['my-model'] = ModelConfig(model_name='my-model', display_name='my-model', url='N/A', org='N/A', license='N/A', model_handler=OpenAICompletionsHandler, input_price=None, output_price=None, is_fc_model=(mode == 'fc'), underscore_to_dot=(mode == 'fc'))
from bfcl_eval.eval_checker import eval_runner
handler.write(written, result_dir=result_dir.parent)
eval_runner.main(['my-model'], [category], result_dir.parent, result_dir.parent.parent / 'score', partial_eval=True)
score_path = next((result_dir.parent.parent / 'score').rglob(f'*_{category}_score.json'))
score_text = score_path.read_text()
score_lines = [json.loads(l) for l in score_text.splitlines()]
score = {**score_lines[0], 'failing': [(l['id'], l['error']['error_type']) for l in score_lines[1:]]}
# Where BFCL's evaluate put the score file, under score/.
score['path'] = str(score_path.relative_to(result_dir.parent.parent / 'score'))
json.dump({'category': category, 'mode': mode, 'model': 'my-model', 'limit': limit, 'entries': out, 'snapshots': snapshots, 'score': score}, open(out_file, 'w'), indent=1, ensure_ascii=False)
