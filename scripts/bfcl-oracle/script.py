# Scripted replies from recorded results: a function-calling result's calls as tool_calls (a text step: no calls).
import sys, json
results_file, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
def reply(step, tag):
    if isinstance(step, list):
        calls = [{'id': f'call_{tag}_{i}', 'type': 'function', 'function': {'name': k, 'arguments': v}} for i, d in enumerate(step) for k, v in d.items()]
        if mode == 'fc':
            return {'role': 'assistant', 'content': None if calls else 'OK.', 'tool_calls': calls, 'refusal': None}
        try: text = '[' + ', '.join(f"{c['function']['name']}({', '.join(f'{k}={v!r}' for k, v in json.loads(c['function']['arguments'], strict=False).items())})" for c in calls) + ']'
        except Exception: text = '[]'
        return {'role': 'assistant', 'content': text}
    return {'role': 'assistant', 'content': step}
script = {}
for line in open(results_file):
    r = json.loads(line)
    res = r['result']
    if r['id'].startswith('multi_turn'):
        script[r['id']] = [reply(s, f'{t}_{j}') for t, turn in enumerate(res) for j, s in enumerate(turn)]
    else:
        script[r['id']] = [reply(res, '0')]
json.dump(script, open(out, 'w'))
