# BM25+ scores from rank_bm25 0.2.2 (the release BFCL pins; its wheel's rank_bm25.py unzipped into $RANK_BM25) on
# made-up key sets, tokenised as BFCL's memory key search tokenises keys and queries. Writes
# {cases: [{keys, query, scores: [repr of each score]}]} for test/unit/bfcl/bfcl-agentic.test.ts.
# usage: RANK_BM25=DIR python3 bm25-scores.py OUT
import importlib.util, json, os, random, sys
spec = importlib.util.spec_from_file_location('rank_bm25', os.path.join(os.environ['RANK_BM25'], 'rank_bm25.py'))
rank_bm25 = importlib.util.module_from_spec(spec); spec.loader.exec_module(rank_bm25)
tok = lambda text: text.replace('_', ' ').lower().split()
words = ['kitchen', 'counter', 'size', 'latte', 'preference', 'first', 'name', 'city', 'budget', 'visits', 'oat', 'milk']
rng = random.Random(33)
cases = [
    (['latte_preference', 'kitchen_counter', 'kitchen_size', 'loyalty_points'], 'Latte preference KITCHEN'),
    (['kitchen_size', 'kitchen_counter'], 'kitchen size'),
    (['first_name'], 'first name'),
    (['first_name', 'city', 'visits'], 'nothing matches'),
]
for n in [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 20, 25, 30, 50]:
    keys = ['_'.join(rng.sample(words, rng.randint(1, 3))) + f'_{i}' for i in range(n)]
    query = ' '.join(rng.sample(words, rng.randint(1, 4)))
    cases.append((keys, query))
out = []
for keys, query in cases:
    scores = rank_bm25.BM25Plus([tok(k) for k in keys]).get_scores(tok(query))
    out.append({'keys': keys, 'query': query, 'scores': [repr(float(s)) for s in scores]})
json.dump({'rank_bm25': '0.2.2', 'cases': out}, open(sys.argv[1], 'w'), indent=1)
