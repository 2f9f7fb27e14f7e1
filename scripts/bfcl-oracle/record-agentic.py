# Runs BFCL's own OpenAICompletionsHandler (gorilla 8db0b7ca) on agentic entries, as its generation runs them
# (load_dataset_entry, the memory prerequisites in sort_key order, populate_initial_settings_*), with a stub OpenAI
# client that records each request and answers from a script, SerpAPI and requests.get answering from a recorded
# web-search file, and rank_bm25's BM25Plus written from its published formula (Debian has no rank_bm25).
# usage: record-agentic.py CATEGORY LIMIT SCRIPT RECORDED_WEB OUT [fc|prompting]
import sys, json, types, copy, math, pathlib, tempfile
sys.path.insert(0, '/tmp'); import hook
sys.path.insert(0, '/tmp/gorilla/berkeley-function-call-leaderboard')
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

class BM25Plus:  # rank_bm25 0.2.2's BM25Plus (k1 1.5, b 0.75, delta 1), from its published formula
    def __init__(self, corpus, k1=1.5, b=0.75, delta=1):
        self.k1, self.b, self.delta = k1, b, delta
        self.doc_freqs, self.doc_len, nd, num_doc = [], [], {}, 0
        for doc in corpus:
            self.doc_len.append(len(doc)); num_doc += len(doc)
            f = {}
            for w in doc: f[w] = f.get(w, 0) + 1
            self.doc_freqs.append(f)
            for w in f: nd[w] = nd.get(w, 0) + 1
        self.corpus_size = len(corpus)
        self.avgdl = num_doc / self.corpus_size
        self.idf = {w: math.log(self.corpus_size + 1) - math.log(n) for w, n in nd.items()}
    def get_scores(self, query):
        score = np.zeros(self.corpus_size); doc_len = np.array(self.doc_len)
        for q in query:
            q_freq = np.array([(d.get(q) or 0) for d in self.doc_freqs])
            score += (self.idf.get(q) or 0) * (self.delta + (q_freq * (self.k1 + 1)) / (self.k1 * (1 - self.b + self.b * doc_len / self.avgdl) + q_freq))
        return score
rank_bm25 = types.ModuleType('rank_bm25'); rank_bm25.BM25Plus = BM25Plus; sys.modules['rank_bm25'] = rank_bm25

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
result_dir = pathlib.Path(tempfile.mkdtemp()) / 'my-model'
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
score_lines = [json.loads(l) for l in next((result_dir.parent.parent / 'score').rglob(f'*_{category}_score.json')).read_text().splitlines()]
score = {**score_lines[0], 'failing': [(l['id'], l['error']['error_type']) for l in score_lines[1:]]}
json.dump({'category': category, 'mode': mode, 'model': 'my-model', 'limit': limit, 'entries': out, 'snapshots': snapshots, 'score': score}, open(out_file, 'w'), indent=1, ensure_ascii=False)
