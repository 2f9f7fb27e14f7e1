# Synthetic function-calling results for web_search_base and memory_kv, scored by BFCL's own evaluate.
import sys, json, os, pathlib, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
from bfcl_eval.utils import get_directory_structure_by_category
MODEL_CONFIG_MAPPING['my-model'] = ModelConfig(model_name='my-model', display_name='my-model', url='N/A', org='N/A', license='N/A', model_handler=OpenAICompletionsHandler, input_price=None, output_price=None, is_fc_model=True, underscore_to_dot=True)
from bfcl_eval.eval_checker import eval_runner
D = '/work/shared/bfcl/agentic/possible_answer/'
root = pathlib.Path(sys.argv[1]); shutil.rmtree(root, ignore_errors=True)
call = lambda: [{"web_search": json.dumps({"keywords": "x"})}]
for cat, src in [('web_search_base', 'BFCL_v4_web_search.json'), ('memory_kv', 'BFCL_v4_memory.json')]:
    answers = [json.loads(l) for l in open(D + src)]
    lines = []
    for i, a in enumerate(answers):
        gt = a['ground_truth'][0]
        k = i % 10
        steps = {
          0: [call(), "{'answer': '%s', 'context': 'found'}" % gt],
          1: [call(), "{'answer': 'I do not know', 'context': 'I do not know'}"],
          2: [call(), call()],
          4: [call(), 'ANSWER: ' + gt.upper().replace(' ', '-') + '.'],
          5: ['So it is ' + gt + '!', call()],
          6: [call(), [{"web_search": "not json"}]],
          7: [call(), 'x' + gt + 'y'],
          8: [call(), []],
          9: [call(), ''],
        }.get(k)
        result = 'Error during inference: timeout' if k == 3 else [steps]
        rid = a['id'].replace('memory', cat) if cat.startswith('memory') else a['id'].replace('web_search', cat)
        lines.append({'id': rid, 'result': result})
    d = root / 'result' / 'my-model' / get_directory_structure_by_category(cat)
    d.mkdir(parents=True, exist_ok=True)
    (d / f'BFCL_v4_{cat}_result.json').write_text('\n'.join(json.dumps(l) for l in lines) + '\n')
eval_runner.main(['my-model'], ['web_search_base', 'memory_kv'], root / 'result', root / 'score')
