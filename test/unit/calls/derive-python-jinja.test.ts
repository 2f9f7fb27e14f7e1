/**
 * Templates using what Python's Jinja has and `@huggingface/jinja` lacks (`{% do %}`, list/dict/str methods,
 * `loop.cycle()`, `dict()`, `%` on strings, filters such as `round`, `e`, `groupby`, `map('tojson')`), rendered by the
 * derivation's bounded renderer with what python-jinja.ts supplies. Every expected rendering was recorded from Python's
 * jinja2 3.1.6 (an Environment with trim_blocks, lstrip_blocks, the `do` and loopcontrols extensions, and
 * transformers' `tojson`); the template texts are our own, modelled on real chat templates.
 */
import { describe, expect, it } from 'vitest'
import { createRequire } from 'node:module'
import { deriveFormat, parseDerived, parseToolCalls, renderTemplateBounded, type ToolDefinition } from '../../../src/calls/index.js'
import { explainEngineError } from '../../../src/calls/derive/jinja.js'
import { pythonJinja } from '../../../src/calls/derive/python-jinja.js'
import { pythonText } from '../../../src/calls/derive/python-text.js'
import { pythonValues } from '../../../src/calls/derive/python-values.js'
import { pythonFilters } from '../../../src/calls/derive/python-filters.js'
import { pythonSyntax } from '../../../src/calls/derive/python-syntax.js'
import { pythonMethods } from '../../../src/calls/derive/python-methods.js'

/** [construct, template, Python's rendering (or, where Python raises, its message), context]. */
const CONSTRUCTS: [string, string, string | RegExp, Record<string, unknown>?][] = [
  ["{% do %} with list.append() in a loop", "{% set l = [] %}{% for m in messages %}{% do l.append(m.role) %}{% endfor %}{{ l|join(',') }}", "user,assistant", {"messages": [{"role": "user"}, {"role": "assistant"}]}],
  ["namespace list mutated by .append()", "{% set ns = namespace(items=[]) %}{% for x in [1,2,3] %}{% do ns.items.append(x * 2) %}{% endfor %}{{ ns.items|length }}:{{ ns.items[2] }}", "3:6"],
  ["list.extend() and list.pop()", "{% set l = [1,2,3] %}{% do l.extend([4,5]) %}{{ l.pop() }}{{ l.pop(0) }}{{ l|join('-') }}", "512-3-4"],
  ["dict.update() and dict.pop()", "{% set d = {'a': 1} %}{% do d.update({'b': 2}, c=3) %}{{ d|tojson }}{{ d.pop('a') }}{{ d|length }}", "{\"a\": 1, \"b\": 2, \"c\": 3}12"],
  ["str.format() mixing automatic and manual numbering raises", "{{ '{} and {name}: {0!r}'.format('x', name='y') }}|{{ '{:>6.2f}|{:05d}|{:,}'.format(3.14159, 42, 1234567) }}", /cannot switch from automatic field numbering to manual field specification/],
  ["str.count(), find(), rfind()", "{{ 'banana'.count('a') }}{{ 'banana'.find('n') }}{{ 'banana'.rfind('n') }}{{ 'banana'.find('z') }}", "324-1"],
  ["str.splitlines()", "{% for l in 'a\\nb\\r\\nc'.splitlines() %}[{{ l }}]{% endfor %}", "[a][b][c]"],
  ["loop.cycle()", "{% for x in range(5) %}{{ loop.cycle('odd', 'even') }} {% endfor %}", "odd even odd even odd "],
  ["dict()", "{{ dict(a=1, b='x')|tojson }}{{ dict([['k', 2]])|tojson }}", "{\"a\": 1, \"b\": \"x\"}{\"k\": 2}"],
  ["map() with a filter name", "{{ [1,'a']|map('string')|join(',') }}|{{ [{'a':1},{'a':2}]|map('tojson')|join(';') }}", "1,a|{\"a\": 1};{\"a\": 2}"],
  ["round: half to even, precision, ceil and floor", "{{ 2.5|round }}|{{ 3.5|round }}|{{ 3|round }}|{{ 2.675|round(2) }}|{{ 3.14159|round(2, 'floor') }}|{{ 3.1|round(0,'ceil') }}|{{ -2.5|round }}", "2.0|4.0|3|2.67|3.14|4.0|-2.0"],
  ["e / escape", "{{ 'a<b & \"c\"'|e }}|{{ \"it's\"|escape }}", "a&lt;b &amp; &#34;c&#34;|it&#39;s"],
  ["sum", "{{ [1,2,3.5]|sum }}|{{ [{'n':2},{'n':5}]|sum(attribute='n') }}|{{ [1,2]|sum(start=10) }}", "6.5|7|13"],
  ["min and max", "{{ ['b','A','c']|min }}|{{ ['b','A','c']|max }}|{{ ['b','A','c']|max(case_sensitive=true) }}|{{ [{'n':2},{'n':5}]|max(attribute='n')|tojson }}|{{ []|min }}", "A|c|c|{\"n\": 5}|"],
  ["batch", "{% for row in [1,2,3,4,5]|batch(2, 0) %}{{ row|join(',') }};{% endfor %}", "1,2;3,4;5,0;"],
  ["groupby (grouper/list, unpacking, case-insensitive)", "{% for g in tools|groupby('kind') %}{{ g.grouper }}={{ g.list|map(attribute='name')|join(',') }};{% endfor %}{% for k, v in tools|groupby('kind') %}{{ k }}{{ v|length }}{% endfor %}", "Math=add,mul;web=search;Math2web1", {"tools": [{"kind": "web", "name": "search"}, {"kind": "Math", "name": "add"}, {"kind": "math", "name": "mul"}]}],
  ["format filter (printf-style)", "{{ '%s=%d (%.2f) %r %05.1f %-4s| %x %%'|format('a', 3, 2.5, 'q', 3.14159, 'ab', 255) }}|{{ '%(n)s!'|format(n='hi') }}", "a=3 (2.50) 'q' 003.1 ab  | ff %|hi!"],
  ["% on strings", "{{ 'Hello %s, you are %d' % ('Bob', 7) }}|{{ '%s' % 'x' }}|{{ '%(a)s-%(b)s' % {'a': 1, 'b': 2} }}", "Hello Bob, you are 7|x|1-2"],
  ["str.format() format specs", "{{ '{:>6.2f}|{:05d}|{:,}|{:^7}|{:+.1%}|{:*<6}|{:.3}|{:e}'.format(3.14159, 42, 1234567, 'mid', 0.256, 'ab', 'abcdef', 12345.678) }}", "  3.14|00042|1,234,567|  mid  |+25.6%|ab****|abc|1.234568e+04"],
  ["attr of an undefined value raises", "{{ ns|attr('x') }}|{{ {'a':1}|attr('a') }}|", /undefined/],
  ["truncate", "{{ 'The quick brown fox jumps over the lazy dog'|truncate(20) }}|{{ 'The quick brown fox jumps'|truncate(20, true) }}|{{ 'short'|truncate(20) }}|{{ 'The quick brown fox jumps over'|truncate(15, false, '…', 0) }}", "The quick brown...|The quick brown fox jumps|short|The quick…"],
  ["urlencode", "{{ 'a b/c&d é'|urlencode }}|{{ {'q': 'a b', 'n': 1}|urlencode }}", "a%20b/c%26d%20%C3%A9|q=a+b&n=1"],
  ["wordcount", "{{ 'Hello, wide world! 42 times_x'|wordcount }}", "5"],
  ["str.strip(chars), lstrip, rstrip", "{{ '  xx  '.strip() }}|{{ '--x--'.strip('-') }}|{{ 'xxhixx'.lstrip('x') }}|{{ 'hi\\n\\n'.rstrip('\\n') }}|", "xx|x|hixx|hi|"],
  ["str.join(), list.index(), list.count()", "{{ ', '.join(['a', 'b']) }}|{{ [1,2,3,2].index(2) }}{{ [1,2,2].count(2) }}", "a, b|12"],
  ["select and reject", "{{ [1,2,3,4]|select('odd')|join(',') }}|{{ [0,1,'',None,'x']|select|list|length }}|{{ [1,2,3,4]|reject('even')|join(',') }}", "1,3|2|1,3"],
  ["dict methods win over keys", "{% set d = {'items': 5} %}{{ d.items()|list|length }}{{ d.get('items') }}", "15"],
  ["{% filter %} with a supplied filter", "{% filter upper %}x{% endfilter %}{% filter e %}<b>{% endfilter %}", "X&lt;b&gt;"],
  ["str.format() field lookups: .name on a dict raises", "{{ 'x'|format }}|{{ '{0[0]}-{0[1]}-{1.name}'.format(['a','b'], {'name':'n'}) }}", /'dict' object has no attribute 'name'/],
  ["do inside whitespace control", "{%- set tools_list = [] -%}\n{%- for t in tools -%}\n  {%- do tools_list.append({'name': t.name, 'n': loop.index}) -%}\n{%- endfor -%}\n{{ tools_list|tojson }}", "[{\"name\": \"a\", \"n\": 1}, {\"name\": \"b\", \"n\": 2}]", {"tools": [{"name": "a"}, {"name": "b"}]}],
  ["str() of values in str.format", "{{ '{}'.format(1.0) }}|{{ '{}'.format([1, 'a', None, True]) }}|{{ '{}'.format(0.00001) }}|{{ '{!r}'.format(\"it's\") }}|{{ 2.5|round|string }}", "1.0|[1, 'a', None, True]|1e-05|\"it's\"|2.0"],
  ["dict.setdefault/copy, list.reverse/insert/remove/clear", "{% set x = {'a': 1} %}{{ x.setdefault('b', 2) }}{{ x.copy()|length }}{% set y = [3,1] %}{% do y.reverse() %}{{ y|join }}{% do y.insert(0, 9) %}{% do y.remove(3) %}{{ y|join }}{% do y.clear() %}{{ y|length }}", "2213910"],
  ["list.pop() of an empty list raises", "{% set l = [] %}{{ l.pop() }}", /pop from empty list/],
  ["{% do %} with a conditional expression", "{% set t = namespace(n=0) %}{% for m in messages %}{% do t.update({}) if false %}{% set t.n = t.n + 1 %}{% endfor %}{{ t.n }}", "2", {"messages": [1, 2]}],
  ["% with too few arguments raises", "{{ '%s and %s' % 'a' }}", /not enough arguments for format string/],
  ["map() through the engine's and the supplied filters", "{{ [3, 1, 2]|map('round')|list|length }}{{ ['a', 'b']|map('upper')|join }}{{ [[1, 2], [3]]|map('sum')|join(',') }}", "3AB3,3"],
  ["dict.items() in a map", "{{ {'b': 1, 'a': 2}.items()|map('first')|join }}", "ba"],
  ["list.extend() of itself adds its items once", "{% set l = [1,2] %}{% do l.extend(l) %}{{ l|join(',') }}", "1,2,1,2"],
  ["dict.get() with a default, dict.items() unpacked", "{% set d = {'a': 1} %}{{ d.get('b', 'none') }}{% for k, v in d.items() %}{{ k }}={{ v }}{% endfor %}", "nonea=1"],
  ["groupby with a default and case_sensitive", "{% for g in [{'k':'A'},{'k':'a'},{}]|groupby('k', default='z', case_sensitive=true) %}{{ g.grouper }}{{ g.list|length }};{% endfor %}", "A1;a1;z1;"],
  ["range() is still the engine's", "{% for i in range(2, 8, 3) %}{{ i }}{% endfor %}", "25"],
  ["% with x, o, + and e conversions", "{{ '%x|%o|%+d|%e|%#x' % (255, 8, 5, 12345.678, 255) }}", "ff|10|+5|1.234568e+04|0xff"],
  ["urlencode of pairs", "{{ [['a', 1], ['b c', 'd&e']]|urlencode }}", "a=1&b+c=d%26e"],
  ["str.format() with a namespace attribute", "{% set ns = namespace(n='x') %}{{ '{0.n}!'.format(ns) }}", "x!"],
  ["min and max with an attribute path", "{{ [{'a': {'b': 3}}, {'a': {'b': 1}}]|min(attribute='a.b')|tojson }}", "{\"a\": {\"b\": 1}}"],
  ["sum of floats", "{{ [0.1, 0.2]|sum }}", "0.30000000000000004"],
  ["tool-call arguments written with str.format() and items()", "{% for c in calls %}{{ c.name }}({% for k, v in c.args.items() %}{{ '{}={!r}'.format(k, v) }}{% if not loop.last %}, {% endif %}{% endfor %}){% endfor %}", "f(city='Oslo', n=2, ok=True, x=None)", {"calls": [{"name": "f", "args": {"city": "Oslo", "n": 2, "ok": true, "x": null}}]}],
  ["raise_exception() is still the engine's", "{{ raise_exception('bad template input') }}", /bad template input/],
  ["string of None, booleans, floats and lists", "{{ none|string }}|{{ true|string }}|{{ 2.0|string }}|{{ ['a', 1]|string }}|{{ {'k': none}|string }}", "None|True|2.0|['a', 1]|{'k': None}"],
  ["list of a string, a dict and a list", "{{ 'ab'|list|join(',') }}|{{ {'x': 1, 'y': 2}|list|join(',') }}|{{ [1]|list|length }}", "a,b|x,y|1"],
  ["join with attribute=, and of non-strings", "{{ [{'n': 'a'}, {'n': 'b'}]|join(', ', attribute='n') }}|{{ [1, true, none]|join('-') }}|{{ 'abc'|join('.') }}", "a, b|1-True-None|a.b.c"],
  ["trim with chars, and of a non-string", "{{ '--x--'|trim('-') }}|{{ '  y  '|trim }}|{{ 5|trim }}", "x|y|5"],
  ["items of a dict and of an undefined value", "{% for k, v in {'a': 1}|items %}{{ k }}{{ v }}{% endfor %}|{% for k, v in missing|items %}x{% endfor %}", "a1|"],
  ["join and list of an undefined value", "[{{ missing|join(',') }}]{{ missing|list|length }}", "[]0"],
  ["values printed as Python prints them: True, None, lists and dicts", "{{ true }}|{{ none }}|{{ [true, none, 'a', 1.0] }}|{{ {'a': {'b': false}} }}|{{ 'x' ~ {'k': none} ~ 2.0 }}|{{ missing }}|{{ (1, 'a') }}", "True|None|[True, None, 'a', 1.0]|{'a': {'b': False}}|x{'k': None}2.0||(1, 'a')"],
  ["~ with an undefined value", "{% set acc = acc ~ 'tools' %}{{ acc }}", "tools"],
  ["tojson as transformers calls it: floats, indent, separators, sort_keys, ensure_ascii", "{{ 1.0|tojson }}|{{ {'b': 3.0, 'a': 'é'}|tojson(indent=2, sort_keys=True) }}|{{ [1, [], {}]|tojson(separators=(',', ':')) }}|{{ 'é'|tojson(ensure_ascii=True) }}|{{ [0.1, 0.00001, 100000000000000000000.0]|tojson }}", "1.0|{\n  \"a\": \"é\",\n  \"b\": 3.0\n}|[1,[],{}]|\"\\u00e9\"|[0.1, 1e-05, 1e+20]"],
  ["for over a string and over an undefined value", "{% for c in 'ab' %}{{ c }},{% endfor %}|{% for m in missing %}x{% endfor %}|{% for c in 'abc' if c != 'b' %}{{ c }}{% endfor %}", "a,b,||ac"],
  ["== and in by Python's equality: lists, dicts, numbers", "{{ [1] in [[1], [2]] }}|{{ [1, 2] == [1, 2] }}|{{ {'a': 1} == {'a': 1} }}|{{ 1 == 1.0 }}|{{ 1 == '1' }}|{{ 'x' not in ['y'] }}", "True|True|True|True|False|True"],
  ["a dict subscript by a list or a number is undefined", "{% set m = {'string': 'str'} %}{{ m[['string', 'null']] is defined }}|{{ m[1] is defined }}|{{ m['string'] }}", "False|False|str"],
  ["string filters of non-strings write str() first", "{{ ['string', 'null']|upper }}|{{ true|lower }}|{{ none|replace('None', 'null') }}", "['STRING', 'NULL']|true|null"],
  ["the float test", "{{ 1.0 is float }}{{ 1 is float }}{{ 'a' is float }}", "TrueFalseFalse"],
  ["strftime_now with Python's directives", "{{ strftime_now('%A')|length > 5 }}|{{ strftime_now('%d %B %Y')|length > 10 }}|{{ strftime_now('%H:%M:%S')|length }}|{{ '%' in strftime_now('%a %-d %b') }}", "True|True|8|False"],
  ["for: what the body sets lasts one iteration, the breaking iteration keeps its output, else, filters, loop.previtem", "{% for i in [1,2] %}{{ i }}{% if loop.last %}{% break %}{% endif %}{% endfor %}|{% for i in [1,2,3] %}{% if i == 2 %}{% continue %}{% endif %}{{ i }}{% endfor %}|{% for k, v in {'a': 1}|items %}{{ k }}{{ v }}{% else %}none{% endfor %}|{% for x in [] %}{% else %}empty{% endfor %}|{% for x in [1,2,3] if x > 1 %}{{ loop.index }}{{ x }}{{ loop.last }}{% endfor %}|{% set x = 1 %}{% for i in [1,2] %}{{ x }}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}|{% for c in 'ab' %}{{ loop.previtem }}{{ c }}{% endfor %}", "12|13|a1|empty|12False23True|12121|aab"],
  ["a dict and an undefined value are iterable and sequences", "{{ {} is iterable }}{{ {} is sequence }}{{ missing is iterable }}{{ missing is sequence }}{{ 1 is iterable }}{{ 'a' is mapping }}", "TrueTrueTrueTrueFalseFalse"],
  ["str + dict raises as in Python", "{{ '>>>' + {'x': 1} }}", /can only concatenate str \(not "dict"\) to str/],
  ["{% raw %} with whitespace control, lstrip_blocks and trim_blocks", "a\n  {% raw %}\n{{x}} {% if %} it's \\n\n  {% endraw %}\nb|{%- raw -%} q {%- endraw %} r", "a\n\n{{x}} {% if %} it's \\n\nb|q r"],
  ["tests with arguments", "{{ 6 is divisibleby(3) }}{{ 7 is not divisibleby(3) }}{{ 2 is in([1, 2]) }}{{ x is sameas(none) }}{{ none is sameas(none) }}{{ 3 is gt(2) }}{{ [1] is eq([1]) }}{{ 1 is ne(1) }}{{ ('a'|upper) is in('ABC') }}", "TrueTrueTrueFalseTrueTrueTrueFalseTrue"],
  ["a dict literal with numbers as keys: subscripts, in, get, dictsort, items, loops, printing and tojson see the numbers", "{% set m = {0: 'a', 512: 'b', 16: 'c'} %}{{ m[0] }}{{ m[512] }}{{ m['0'] is defined }}{{ '0' in m }}|{{ m }}|{% for k, v in m|dictsort %}{{ k }}={{ v }},{% endfor %}|{{ 0 in m }}{{ 5 in m }}|{{ m.get(512) }}{{ m.get('512') }}|{% for k in m %}{{ k is number }}{% endfor %}|{{ m|tojson }}|{{ {'b': 1, 'A': 2}|dictsort }}|{{ {'b': 1, 'a': 0}|dictsort(by='value', reverse=true) }}|{{ m.items()|list }}|{% for k, v in {'a': 1}.items() %}{{ k }}{{ v }}{% endfor %}{% set a, b = {'q': 2}.items()|first %}{{ a }}{{ b }}|{{ {'z': 1}|items|list }}", "abFalseFalse|{0: 'a', 512: 'b', 16: 'c'}|0=a,16=c,512=b,|TrueFalse|bNone|TrueTrueTrue|{\"0\": \"a\", \"512\": \"b\", \"16\": \"c\"}|[('A', 2), ('b', 1)]|[('b', 1), ('a', 0)]|[(0, 'a'), (512, 'b'), (16, 'c')]|a1q2|[('z', 1)]"],
  ["safe and e give Markup: + with a plain string escapes it, ~ does not", "{{ 'a<'|safe + '<b>' }}|{{ '<x>' + 'y'|safe }}|{{ ('<'|e) + '<' }}|{{ ('<'|e)|e }}|{{ ('<'|e)|forceescape }}|{{ 'a'|safe ~ '<' }}|{{ '<a>'|safe }}|{{ ('x'|safe + '\"q\"')|length }}|{{ 1|safe }}", "a<&lt;b&gt;|&lt;x&gt;y|&lt;&lt;|&lt;|&amp;lt;|a<|<a>|12|1"],
  ["+ with an undefined value raises naming what is missing, as Python's Undefined does", "{{ '): ' + tool.description }}", /'dict object' has no attribute 'description'/, {"tool": {"name": "f"}}],
  ["a dict literal with 0 and '0' as keys names what it cannot hold apart", "{% set m = {0: 'a', '0': 'b'} %}{{ m }}", /keys '0' and 0: not held apart here/],
]

describe("each construct renders as Python's Jinja renders it", () => {
  it.each(CONSTRUCTS)('%s', (_, template, expected, context = {}) => {
    const r = renderTemplateBounded(template, context)
    if (expected instanceof RegExp) expect(r.error).toMatch(expected)
    else expect(r).toEqual({ text: expected })
  })
})

const TOOLS: ToolDefinition[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city & its forecast, in metric units, for up to ten days ahead', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
  { type: 'function', function: { name: 'set_alarm', description: 'Set an alarm', parameters: { type: 'object', properties: { at: { type: 'string' } } } } },
]
const USER = { role: 'user', content: 'Weather in Oslo & alarm?' }
const CALLS = {
  role: 'assistant',
  content: '',
  tool_calls: [
    { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Oslo', days: 3 } } },
    { id: 'c2', type: 'function', function: { name: 'set_alarm', arguments: { at: '07:00' } } },
  ],
}

/** Whole templates: the tool list built with `{% do %}`, calls written with `str.format()` into a namespace, and `dict()` + `update()` + `groupby`. */
const TEMPLATES: { name: string; template: string; python: string; format: string }[] = [
  {
    name: 'tools gathered with {% do tools_list.append() %}, a system line with str.format(), Hermes calls',
    template: "{%- set tools_list = [] -%}\n{%- for tool in tools or [] -%}\n  {%- do tools_list.append(tool.function if tool.function is defined else tool) -%}\n{%- endfor -%}\n{%- if tools_list -%}\n<|im_start|>system\n{{ 'You have {} tool{}:'.format(tools_list|length, '' if tools_list|length == 1 else 's') }}\n{% for t in tools_list %}\n{{ t|tojson }}\n{% endfor %}\n<|im_end|>\n{% endif -%}\n{%- for message in messages -%}\n{%- if message.role == 'user' -%}\n<|im_start|>user\n{{ message.content }}<|im_end|>\n{% elif message.role == 'assistant' -%}\n<|im_start|>assistant\n{% if message.content %}{{ message.content }}{% if message.tool_calls %}\n{% endif %}{% endif %}\n{%- for tc in message.tool_calls or [] -%}\n{%- set call = {'name': tc.function.name, 'arguments': tc.function.arguments} -%}\n<tool_call>\n{{ call|tojson }}\n</tool_call>{% if not loop.last %}\n{% endif %}\n{%- endfor -%}\n<|im_end|>\n{% endif -%}\n{%- endfor -%}\n{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}",
    python: "<|im_start|>system\nYou have 2 tools:\n{\"name\": \"get_weather\", \"description\": \"Weather for a city & its forecast, in metric units, for up to ten days ahead\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}}}\n{\"name\": \"set_alarm\", \"description\": \"Set an alarm\", \"parameters\": {\"type\": \"object\", \"properties\": {\"at\": {\"type\": \"string\"}}}}\n<|im_end|>\n<|im_start|>user\nWeather in Oslo & alarm?<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3}}\n</tool_call><tool_call>\n{\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}}\n</tool_call><|im_end|>\n",
    format: 'hermes',
  },
  {
    name: 'namespace lists filled with .append() and str.format(), truncate and round in the system prompt, Mistral calls',
    template: "{%- set ns = namespace(lines=[], calls=[]) -%}\n{%- for tool in tools -%}\n{%- do ns.lines.append('- {name}: {desc}'.format(name=tool.function.name, desc=tool.function.description|truncate(60))) -%}\n{%- endfor -%}\n{{ '<s>[SYSTEM]Tools:\\n' + ns.lines|join('\\n') + '\\nCost per call: ' + (0.1234|round(2)|string) + '[/SYSTEM]' }}\n{%- for message in messages -%}\n{%- if message.role == 'user' -%}\n{{ '[INST]' + message.content + '[/INST]' }}\n{%- elif message.role == 'assistant' -%}\n{%- if message.content %}{{ message.content }}{% endif -%}\n{%- if message.tool_calls -%}\n{%- set ns.calls = [] -%}\n{%- for tc in message.tool_calls -%}\n{%- set args = tc.function.arguments if tc.function.arguments is string else tc.function.arguments|tojson -%}\n{%- do ns.calls.append('{{\"name\": \"{}\", \"arguments\": {}}}'.format(tc.function.name, args)) -%}\n{%- endfor -%}\n{{ '[TOOL_CALLS][' + ns.calls|join(', ') + ']' }}\n{%- endif -%}\n{{ '</s>' }}\n{%- endif -%}\n{%- endfor -%}",
    python: "<s>[SYSTEM]Tools:\n- get_weather: Weather for a city & its forecast, in metric units, for...\n- set_alarm: Set an alarm\nCost per call: 0.12[/SYSTEM][INST]Weather in Oslo & alarm?[/INST][TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3}}, {\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}}]</s>",
    format: 'mistral',
  },
  {
    name: 'dict() and dict.update(), groupby, loop.cycle() and e; calls in <invoke> tags',
    template: "{%- set by_kind = [] -%}\n{%- for tool in tools -%}\n{%- set entry = dict(name=tool.function.name) -%}\n{%- do entry.update({'kind': 'read' if 'get' in tool.function.name else 'write'}) -%}\n{%- do by_kind.append(entry) -%}\n{%- endfor -%}\n<|system|>\n{% for group in by_kind|groupby('kind') %}\n{{ group.grouper|upper }}: {{ group.list|map(attribute='name')|join(', ') }} ({{ loop.cycle('a', 'b') }})\n{% endfor %}\n{%- for message in messages %}\n<|{{ message.role }}|>\n{% if message.content %}{{ message.content|e if message.role == 'user' else message.content }}{% endif %}\n{% if message.tool_calls %}\n<function_calls>\n{% for tc in message.tool_calls %}\n{% set payload = dict(name=tc.function.name, arguments=tc.function.arguments) %}\n<invoke>{{ payload|tojson }}</invoke>\n{% endfor %}\n</function_calls>\n{% endif %}\n{%- endfor %}\n{% if add_generation_prompt %}\n<|assistant|>\n{% endif %}",
    python: "<|system|>\nREAD: get_weather (a)\nWRITE: set_alarm (b)\n<|user|>\nWeather in Oslo &amp; alarm?<|assistant|>\n<function_calls>\n<invoke>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3}}</invoke>\n<invoke>{\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}}</invoke>\n</function_calls>\n",
    format: 'hermes',
  },
]

describe('whole templates: the format is derived, and the calls the template writes are read back', () => {
  it.each(TEMPLATES)('$name', ({ template, python, format }) => {
    const context = { tools: TOOLS, bos_token: '', eos_token: '' }
    const full = renderTemplateBounded(template, { ...context, messages: [USER, CALLS], add_generation_prompt: false })
    expect(full).toEqual({ text: python })
    const f = deriveFormat(template)
    if ('error' in f) throw new Error(f.error)
    expect(f.verified).toContain('two calls')
    // The model's output: what the conversation with the calls renders beyond the prompt.
    const prompt = renderTemplateBounded(template, { ...context, messages: [USER], add_generation_prompt: true })
    if (prompt.error !== undefined || !python.startsWith(prompt.text)) throw new Error(`the prompt is no prefix: ${JSON.stringify(prompt)}`)
    const output = python.slice(prompt.text.length)
    const calls = parseToolCalls(output, { chatTemplate: template, tools: TOOLS })
    expect(calls.map((c) => [c.format, c.name, c.arguments, c.argumentsValid])).toEqual([
      [format, 'get_weather', { city: 'Oslo', days: 3 }, true],
      [format, 'set_alarm', { at: '07:00' }, true],
    ])
  })
})

/** What each template writes for the calls below, recorded from Python's jinja2 (the output after the generation prompt, without its end-of-turn token). */
const SERVING_TOOLS: ToolDefinition[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather.', parameters: { type: 'object', properties: { city: { type: 'string', description: 'City.' }, days: { type: 'integer', description: 'Days.' }, exact: { type: 'boolean', description: 'Exact.' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Note.' }, tags: { type: 'array', description: 'Tags.' } } } } },
  { type: 'function', function: { name: 'set_alarm', description: 'Alarm.', parameters: { type: 'object', properties: { at: { type: 'string', description: 'Time.' } } } } },
]
const SERVING_CALLS = [
  ['get_weather', { city: 'Oslo', days: 3, exact: true, note: null, tags: ['a', [1]] }, true],
  ['set_alarm', { at: '07:00' }, true],
]
const SERVING: { name: string; template: string; output: string; derived: Record<string, unknown> }[] = [
  {
    name: "Mistral-style: call ids must be nine letters or digits, else the template raises",
    template: "{%- for message in messages -%}\n{%- if message.role == 'user' -%}\n[INST]{{ message.content }}[/INST]\n{%- elif message.role == 'assistant' and message.tool_calls -%}\n[TOOL_CALLS][\n{%- for tc in message.tool_calls -%}\n{%- if tc.id is not defined or tc.id|length != 9 -%}{{ raise_exception('call ids are nine letters or digits') }}{%- endif -%}\n{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments|tojson }}, \"id\": \"{{ tc.id }}\"}{% if not loop.last %}, {% endif %}\n{%- endfor -%}\n]</s>\n{%- elif message.role == 'assistant' -%}\n{{ message.content }}</s>\n{%- endif -%}\n{%- endfor -%}\n",
    output: "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3, \"exact\": true, \"note\": null, \"tags\": [\"a\", [1]]}, \"id\": \"call0abcd\"}, {\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}, \"id\": \"call1abcd\"}]",
    derived: { matches: 'mistral' },
  },
  {
    name: "XML parameters written with `|string`: True and None as Python prints them",
    template: "{%- for m in messages -%}\n<|im_start|>{{ m.role }}\n{% if m.content %}{{ m.content }}\n{% endif %}\n{%- for tc in m.tool_calls or [] -%}\n<tool_call>\n<function={{ tc.function.name }}>\n{% for k, v in tc.function.arguments|items %}\n<parameter={{ k }}>\n{{ v|tojson if v is mapping or (v is sequence and v is not string) else v|string }}\n</parameter>\n{% endfor %}\n</function>\n</tool_call>\n{% endfor -%}\n<|im_end|>\n{% endfor -%}\n{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}\n",
    output: "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=exact>\nTrue\n</parameter>\n<parameter=note>\nNone\n</parameter>\n<parameter=tags>\n[\"a\", [1]]\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=set_alarm>\n<parameter=at>\n07:00\n</parameter>\n</function>\n</tool_call>\n",
    derived: { matches: 'qwen3_coder', shape: { kind: 'xml-pairs', values: 'raw' } },
  },
  {
    name: "a macro that turns a schema's type into a Python type, recursing over type lists (Hermes-style)",
    template: "{%- macro py_type(s) -%}\n{%- set basic = {'string': 'str', 'integer': 'int', 'number': 'float', 'boolean': 'bool'} -%}\n{%- if basic[s.type] is defined -%}{{ basic[s.type] }}\n{%- elif s.type == 'array' -%}list\n{%- elif s.type == 'object' -%}dict\n{%- elif s.type is iterable -%}Union[{% for t in s.type %}{{ py_type({'type': t}) }}{% if not loop.last %}, {% endif %}{% endfor %}]\n{%- else -%}Any\n{%- endif -%}\n{%- endmacro -%}\n<|im_start|>system\n{% for tool in tools %}\n{{ tool.function.name }}({% for name, p in tool.function.parameters.properties|items %}{{ name }}: {{ py_type(p) }}{% if not loop.last %}, {% endif %}{% endfor %})\n{% endfor %}\n<|im_end|>\n{% for m in messages -%}\n<|im_start|>{{ m.role }}\n{% if m.content %}{{ m.content }}{% endif %}\n{% for tc in m.tool_calls or [] %}\n<tool_call>\n{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments|tojson }}}\n</tool_call>\n{% endfor %}\n<|im_end|>\n{% endfor -%}\n{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif -%}\n",
    output: "Checking.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3, \"exact\": true, \"note\": null, \"tags\": [\"a\", [1]]}}\n</tool_call>\n<tool_call>\n{\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}}\n</tool_call>\n",
    derived: { matches: 'hermes' },
  },
  {
    name: "Llama 4-style: a line break before the header of a turn with calls, content then call objects back to back",
    template: "{%- for m in messages -%}\n{%- if m.role == 'assistant' and m.tool_calls %}\n\n<|header_start|>assistant<|header_end|>\n\n{{ m.content }}\n{%- for tc in m.tool_calls -%}\n{\"name\": \"{{ tc.function.name }}\", \"parameters\": {{ tc.function.arguments|tojson }}}\n{%- endfor -%}\n<|eot|>\n{%- else -%}\n<|header_start|>{{ m.role }}<|header_end|>\n\n{{ m.content }}<|eot|>\n{%- endif -%}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n<|header_start|>assistant<|header_end|>\n\n{% endif -%}\n",
    output: "Checking.{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\", \"days\": 3, \"exact\": true, \"note\": null, \"tags\": [\"a\", [1]]}}{\"name\": \"set_alarm\", \"parameters\": {\"at\": \"07:00\"}}",
    derived: { shape: { kind: 'json-object', argumentsKey: 'parameters' }, blockOpen: '' },
  },
  {
    name: "a JSON list of call objects whose arguments hold lists (`[` inside the block)",
    template: "{%- for m in messages -%}\n{%- if m.role == 'assistant' -%}\n<|assistant|>{{ m.content }}\n{%- if m.tool_calls -%}\n[{% for tc in m.tool_calls %}{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments|tojson }}}{% if not loop.last %}, {% endif %}{% endfor %}]\n{%- endif -%}\n<|end|>\n{%- else -%}\n<|{{ m.role }}|>{{ m.content }}<|end|>\n{%- endif -%}\n{%- endfor -%}\n{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}\n",
    output: "Checking.[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3, \"exact\": true, \"note\": null, \"tags\": [\"a\", [1]]}}, {\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}}]",
    derived: { blockOpen: '[', blockClose: ']', separator: ', ', shape: { kind: 'json-object' } },
  },
  {
    name: "Functionary v3.2-style: the prompt ends with `>>>`, text is `>>>all`, and `str + dict` raises as in Python",
    template: "{%- for m in messages -%}\n{%- if m.role == 'user' -%}\n<|user|>{{ m.content }}<|end|>\n{%- elif m.role == 'assistant' -%}\n<|assistant|>\n{%- if m.content -%}{{ '>>>all\\n' + m.content }}{%- endif -%}\n{%- for tc in m.tool_calls or [] -%}{{ '>>>' + tc.function.name + '\\n' + tc.function.arguments }}{%- endfor -%}\n<|end|>\n{%- endif -%}\n{%- endfor -%}\n{%- if add_generation_prompt -%}<|assistant|>>>>{%- endif -%}\n",
    output: "all\nChecking.>>>get_weather\n{\"city\":\"Oslo\",\"days\":3,\"exact\":true,\"note\":null,\"tags\":[\"a\",[1]]}>>>set_alarm\n{\"at\":\"07:00\"}",
    derived: { shape: { kind: 'format' }, matches: 'functionary_v3_2' },
  },
  {
    name: "Command R+-style: each parameter's description written with +, which raises where one is missing",
    template: "{%- for tool in tools %}\n{{ '## ' + tool.function.name + '\\n' }}\n{%- for name, p in tool.function.parameters.properties|items %}\n{{ '- ' + name + ' (' + p.type|string + '): ' + p.description + '\\n' }}\n{%- endfor %}\n{%- endfor %}\n{%- for m in messages %}\n<|{{ m.role }}|>\n{% if m.content %}{{ m.content }}{% endif %}\n{% for tc in m.tool_calls or [] %}<tool_call>\n{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments|tojson }}}\n</tool_call>\n{% endfor %}<|end|>\n{% endfor %}\n{%- if add_generation_prompt %}<|assistant|>\n{% endif %}\n",
    output: "Checking.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3, \"exact\": true, \"note\": null, \"tags\": [\"a\", [1]]}}\n</tool_call>\n<tool_call>\n{\"name\": \"set_alarm\", \"arguments\": {\"at\": \"07:00\"}}\n</tool_call>\n",
    derived: { matches: 'hermes' },
  },
]

describe('templates written as serving stacks write them: derived, and their calls read back', () => {
  it.each(SERVING)('$name', ({ template, output, derived }) => {
    const f = deriveFormat(template)
    if ('error' in f) throw new Error(f.error)
    expect(f).toMatchObject(derived)
    expect(f.verified).toEqual(['one call', 'two calls', 'every value type', 'text before the call'])
    expect(parseToolCalls(output, { chatTemplate: template, tools: SERVING_TOOLS }).map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual(SERVING_CALLS)
    expect(parseDerived(output, f, { tools: SERVING_TOOLS }).map((c) => [c.name, c.arguments, c.argumentsValid])).toEqual(SERVING_CALLS)
  })
})

describe('where a construct cannot be supplied', () => {
  it('an engine without the expected public API is not patched: python-jinja refuses it, and errors name every construct', () => {
    const jinja = createRequire(import.meta.url)('@huggingface/jinja') as Record<string, unknown>
    expect(() => pythonJinja({ ...jinja, tokenize: undefined }, pythonText(), pythonValues(pythonText()), pythonFilters, pythonSyntax, pythonMethods)).toThrow(/no tokenize/)
    class Interpreter {}
    expect(() => pythonJinja({ ...jinja, Interpreter }, pythonText(), pythonValues(pythonText()), pythonFilters, pythonSyntax, pythonMethods)).toThrow(/no evaluate/)
    // With the engine as it is, the supply compiles and renders in this thread too.
    const py = pythonText()
    expect(pythonJinja(jinja, py, pythonValues(py), pythonFilters, pythonSyntax, pythonMethods)("{% set l = [] %}{% do l.append(1) %}{{ l|tojson }}").render({})).toBe('[1]')
    const source = "{% do l.append(1) %}{{ x|round }}"
    expect(explainEngineError(source, 'Unknown statement type: do', false)).toMatch(/uses \{% do %\}, list\.append\(\), a filter it lacks \(format, round/)
    expect(explainEngineError(source, 'Unknown statement type: do', true)).not.toMatch(/append/)
    // zip() and a bool filter are not Python Jinja's either: a template using them fails there too, and here.
    expect(renderTemplateBounded('{{ zip([1], [2]) }}', {}).error).toMatch(/not a function/)
    expect(renderTemplateBounded('{{ 1|bool }}', {}).error).toMatch(/bool/)
  })
})
