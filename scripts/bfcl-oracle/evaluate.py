# BFCL's own evaluate over result files that tool-evals bfcl run wrote.
import os, sys, pathlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import hook
sys.path.insert(0, os.path.join(os.environ.get('GORILLA', '/tmp/gorilla'), 'berkeley-function-call-leaderboard'))
from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING, ModelConfig
from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler
MODEL_CONFIG_MAPPING['openai/gpt-oss-120b'] = ModelConfig(model_name='openai/gpt-oss-120b', display_name='gpt-oss', url='N/A', org='N/A', license='N/A', model_handler=OpenAICompletionsHandler, input_price=None, output_price=None, is_fc_model=True, underscore_to_dot=True)
from bfcl_eval.eval_checker import eval_runner
root = pathlib.Path(sys.argv[1])
eval_runner.main(['openai/gpt-oss-120b'], [sys.argv[2]], root / 'result', root / 'bfcl-score')
