# Synthetic prompting-model results for web_search_base (each step a text), scored by BFCL's own evaluate with a
# prompting model's config. Writes {results (answer as {{answer}}), score: header + failing ids and error types}.
# usage: agentic-prompting.py OUT
import os, sys, json, pathlib, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
MODEL_CONFIG_MAPPING['my-model'] = ModelConfig(model_name='my-model', display_name='my-model', url='N/A', org='N/A', license='N/A', model_handler=OpenAICompletionsHandler, input_price=None, output_price=None, is_fc_model=False, underscore_to_dot=False)
from bfcl_eval.eval_checker import eval_runner
answers = [json.loads(l) for l in open('/work/shared/bfcl/agentic/possible_answer/BFCL_v4_web_search.json')][:10]
call = "[search_engine_query(keywords='x')]"
templates = [
    [call, "{'answer': '{{answer}}', 'context': 'found'}"],
    ["So it is {{answer}}!", call],
    [call, "```\n[fetch_url_content(url='https://a.example')]\n```"],
    [call, "[{{answer}}]"],
    [call, "[]"],
    [call, [{"search_engine_query": "{\"keywords\": \"{{answer}}\"}"}]],
    ["search_engine_query(keywords='{{answer}}')"],
    [call, "x{{answer}}y"],
    [call, "I think the answer is {{answer}}, see [source]"],
    [call, ""],
]
root = pathlib.Path(tempfile.mkdtemp())
lines, placeholder = [], []
for i, a in enumerate(answers):
    t = templates[i % len(templates)]
    placeholder.append({'id': a['id'].replace('web_search', 'web_search_base'), 'result': [t]})
    real = json.loads(json.dumps([t]).replace('{{answer}}', json.dumps(a['ground_truth'][0])[1:-1]))
    lines.append({'id': a['id'].replace('web_search', 'web_search_base'), 'result': real})
d = root / 'result' / 'my-model' / 'agentic'; d.mkdir(parents=True)
(d / 'BFCL_v4_web_search_base_result.json').write_text('\n'.join(json.dumps(l) for l in lines) + '\n')
eval_runner.main(['my-model'], ['web_search_base'], root / 'result', root / 'score', partial_eval=True)
score = [json.loads(l) for l in next((root / 'score').rglob('*_web_search_base_score.json')).read_text().splitlines()]
json.dump({'results': placeholder, 'score': {**score[0], 'failing': [[l['id'], l['error']['error_type']] for l in score[1:]]}}, open(sys.argv[1], 'w'), indent=1)
