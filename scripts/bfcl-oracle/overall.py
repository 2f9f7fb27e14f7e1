# BFCL's own leaderboard aggregation (eval_runner_helper.generate_leaderboard_csv) over score files we write.
import sys, json, os, tempfile, pathlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.eval_checker import eval_runner_helper as h
from bfcl_eval.utils import get_directory_structure_by_category
MODEL_CONFIG_MAPPING['my-model'] = ModelConfig(model_name='my-model', display_name='my-model', url='N/A', org='N/A', license='N/A', model_handler=None, input_price=None, output_price=None, is_fc_model=True, underscore_to_dot=True)
scenarios = json.load(open(sys.argv[1]))
out = []
for sc in scenarios:
    d = pathlib.Path(tempfile.mkdtemp())
    for cat, head in sc['scores'].items():
        g = d / 'my-model' / get_directory_structure_by_category(cat)
        g.mkdir(parents=True, exist_ok=True)
        (g / f'BFCL_v4_{cat}_score.json').write_text(json.dumps(head) + '\n')
    table = {}
    h.update_leaderboard_table_with_local_score_file(table, d)
    h.generate_leaderboard_csv(table, d)
    csv = {f: (d / f).read_text() for f in ['data_non_live.csv', 'data_live.csv', 'data_multi_turn.csv', 'data_agentic.csv', 'data_format_sensitivity.csv', 'data_overall.csv']}
    out.append({**sc, 'csv': csv})
json.dump(out, open(sys.argv[2], 'w'), indent=1)
