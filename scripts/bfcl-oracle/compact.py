# Fixture compaction: tools stored once per entry (`toolsets`), each request's messages as the previous request's
# plus `new_messages` (asserted to be a prefix extension), so the multi-turn fixtures stay small.
import json, sys
src, dst = sys.argv[1], sys.argv[2]
d = json.load(open(src))
for e in d['entries']:
    toolsets, reqs, prev = [], [], []
    for r in e['requests']:
        r = dict(r)
        if 'tools' in r:
            if r['tools'] not in toolsets: toolsets.append(r['tools'])
            r['tools'] = toolsets.index(r['tools'])
        msgs = r.pop('messages')
        if msgs[:len(prev)] == prev:
            r['messages_after_previous'] = msgs[len(prev):]
        else:
            r['messages'] = msgs
        prev = msgs
        reqs.append(r)
    e['toolsets'], e['requests'] = toolsets, reqs
json.dump(d, open(dst, 'w'), indent=1, ensure_ascii=False)
