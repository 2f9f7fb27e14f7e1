# Runs BFCL's own OpenAICompletionsHandler (gorilla 8db0b7ca) with a stub OpenAI client that records each request
# and answers from a script; writes {category, mode, entries:[{id, responses, requests, result}]} as JSON.
import os, sys, json, types, copy
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
category, mode, limit, script_file, out_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]

class Obj:
    """An SDK response object: attribute access, and the raw dict it came from (what the SDK echoes when sent back)."""
    def __init__(self, raw):
        self._raw = raw
        for k, v in raw.items():
            setattr(self, k, Obj(v) if isinstance(v, dict) else [Obj(x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else v)

def plain(v):
    if isinstance(v, Obj): return v._raw
    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list): return [plain(x) for x in v]
    return v

SCRIPT = json.load(open(script_file))  # {id: [reply message, ...]}
state = {'id': None, 'requests': [], 'step': 0}
class Completions:
    def create(self, **kwargs):
        state['requests'].append(plain(copy.deepcopy(kwargs)))
        replies = SCRIPT.get(state['id'], [])
        msg = replies[state['step']] if state['step'] < len(replies) else {'role': 'assistant', 'content': 'Done.'}
        state['step'] += 1
        state['used'].append(msg)
        return Obj({'choices': [{'index': 0, 'message': msg, 'finish_reason': 'stop'}], 'usage': {'prompt_tokens': 10, 'completion_tokens': 2}})
class OpenAI:
    def __init__(self, **kw): self.chat = types.SimpleNamespace(completions=Completions())
class RateLimitError(Exception): pass
openai = types.ModuleType('openai'); openai.OpenAI = OpenAI; openai.RateLimitError = RateLimitError
sys.modules['openai'] = openai

from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import load_dataset_entry
handler = OpenAICompletionsHandler(model_name='my-model', temperature=0.001, registry_name='my-model', is_fc_model=(mode == 'fc'))
entries = load_dataset_entry(category)[:limit]
out = []
for e in entries:
    state.update(id=e['id'], requests=[], step=0, used=[])
    result, meta = handler.inference(copy.deepcopy(e), include_input_log=False, exclude_state_log=True)
    out.append({'id': e['id'], 'responses': state['used'], 'requests': state['requests'], 'result': result})
json.dump({'category': category, 'mode': mode, 'model': 'my-model', 'temperature': 0.001, 'entries': out}, open(out_file, 'w'), indent=1, ensure_ascii=False)
