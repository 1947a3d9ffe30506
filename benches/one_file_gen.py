#!/usr/bin/env python3
"""One large file of one importer's shape: N copies of a real sample's records (tests/formats/,
tests/inputs/) with unique ids, for timing `provscope summary FILE` at N and 4N records
(docs/benchmarks.md, "One file of many records"; benches/one_file_time.sh runs it).

    python3 benches/one_file_gen.py SHAPE N OUT
"""
import json, os, re, sys, copy
T = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests') + '/'
shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]

# OTLP: the semconv MCP stdio tool-call example (as benches/import.rs writes it).
def attr(k, v): return {"key": k, "value": {"stringValue": v}}
def spans(t, k, conv):
    tid = '%032x' % (t + 1)
    def sp(i, parent, name, kind, attrs):
        return {"traceId": tid, "spanId": '%08x%08x' % (k, i), "parentSpanId": ('%08x%08x' % (k, parent)) if parent else "", "name": name, "kind": kind,
                "startTimeUnixNano": str(1759300000000000000 + k * 1000000000 + i), "endTimeUnixNano": str(1759300000500000000 + k * 1000000000 + i), "attributes": attrs}
    inp = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Weather in San Francisco, question %d-%d?" % (t, k)}]}])
    out = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Highs of 75F and lows of 60F in San Francisco on 2025-10-01, with fog in the morning."}]}])
    tool = [attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", "get-weather"), attr("gen_ai.tool.call.id", "call_%d_%d" % (t, k)),
            attr("mcp.method.name", "tools/call"), attr("mcp.session.id", "8267461134f24305af708e66b8eda71a"),
            attr("gen_ai.tool.call.arguments", '{"location": "San Francisco?", "date": "2025-10-01"}'),
            attr("gen_ai.tool.call.result", '{"temperature_range": {"high": 75, "low": 60}, "conditions": "fog then sun"}')]
    return [sp(1, 0, "invoke_agent weather", 1, [attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.conversation.id", conv)]),
            sp(2, 1, "chat gpt-4", 3, [attr("gen_ai.operation.name", "chat"), attr("gen_ai.input.messages", inp)]),
            sp(3, 1, "tools/call get-weather", 3, tool),
            sp(4, 3, "tools/call get-weather", 2, tool),
            sp(5, 1, "chat gpt-4", 3, [attr("gen_ai.operation.name", "chat"), attr("gen_ai.input.messages", inp), attr("gen_ai.output.messages", out)])]
def line(t, conv):
    return json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans(t, 0, conv)}]}]})


IDRE = re.compile(r'\b(toolu_|srvtoolu_|mcptoolu_|call_|msg_|sevt_|chatcmpl-|resp_|fc_|ws_|mcp_|rs_|msg-|run-)([A-Za-z0-9]+)')
UUIDRE = re.compile(r'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)([0-9a-f]{12})')
def uniq(s, k, keep=()):
    def f(m):
        if m.group(0) in keep: return m.group(0)
        return m.group(1) + m.group(2) + 'x%x' % k
    s = IDRE.sub(f, s)
    def g(m):
        if m.group(0) in keep: return m.group(0)
        return m.group(1) + '%012x' % ((int(m.group(2), 16) * 1000003 + k * 7919 + 1) % (1 << 48))
    return UUIDRE.sub(g, s)

def lines(p): return [l for l in open(T + p, encoding='utf-8').read().split('\n') if l.strip()]
w = open(out, 'w', encoding='utf-8')

if shape in ('cc-one', 'cc-many'):
    ls = lines('formats/claude-code/projects/-Users-pete-tmp-claude-code-sessions/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl')
    sid = '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68'
    for k in range(n):
        for l in ls:
            l = uniq(l, k, keep=() if shape == 'cc-many' else (sid,))
            w.write(l + '\n')
elif shape in ('ma-one', 'ma-many'):
    ls = lines('inputs/anthropic-managed-agents/anthropic_managed_custom_tools.jsonl')
    # events only (the stream), one a line
    evs = [json.loads(l)[1] for l in ls if json.loads(l)[0] == 'client.beta.sessions.events.stream']
    for k in range(n):
        for e in evs:
            s = uniq(json.dumps(e), k)
            if shape == 'ma-many':
                s = s.replace('sthr_01VoaiEV5NRV7', 'sthr_01VoaiEV5NRV7x%x' % k)
            w.write(s + '\n')
elif shape in ('ma-rec-one', 'ma-rec-many'):
    ls = lines('inputs/anthropic-managed-agents/anthropic_managed_custom_tools.jsonl')
    for k in range(n):
        for i, l in enumerate(ls):
            if k > 0 and i == 0 and shape == 'ma-rec-one': continue
            s = uniq(l, k)
            if shape == 'ma-rec-many': s = s.replace('sesn_014fc5Q6rWwrXD3vWBfPRUes', 'sesn_014fc5Q6rWwrXD3vWBfPRUesx%x' % k)
            w.write(s + '\n')
elif shape in ('oc-proxy', 'oc-proxy-many'):
    ls = lines('inputs/openai-chat/proxy-log.jsonl')
    for k in range(n):
        for l in ls:
            s = uniq(l, k)
            if shape == 'oc-proxy-many':
                s = s.replace('where is it now?', 'where is it now? (%d)' % k)
            w.write(s + '\n')
elif shape == 'oc-array':
    ls = lines('inputs/openai-chat/proxy-log.jsonl')
    w.write('[')
    for k in range(n):
        for j, l in enumerate(ls):
            o = json.loads(uniq(l, k))['response']
            w.write((',' if k or j else '') + json.dumps(o) + '\n')
    w.write(']')
elif shape == 'oc-sse':
    # one stream, many completions (each its own id)
    txt = open(T + 'inputs/openai-chat/stream-tool-call.sse').read()
    for k in range(n):
        w.write(uniq(txt, k).rstrip('\n') + '\n\n')
elif shape == 'oc-chunk-lines':
    txt = open(T + 'inputs/openai-chat/stream-tool-call.sse').read()
    ds = [l[6:] for l in txt.split('\n') if l.startswith('data: {')]
    for k in range(n):
        for d in ds: w.write(uniq(d, k) + '\n')
elif shape == 'oc-sse-long':
    # one completion of many content chunks
    head = {"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1754056800, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
    w.write('data: ' + json.dumps(head) + '\n\n')
    for k in range(n):
        c = {"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1754056800, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {"content": "word%d and some more text. " % k}, "finish_reason": None}]}
        w.write('data: ' + json.dumps(c) + '\n\n')
    c = {"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1754056800, "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    w.write('data: ' + json.dumps(c) + '\n\ndata: [DONE]\n\n')
elif shape == 'an-sse-long':
    w.write('event: message_start\ndata: ' + json.dumps({"type": "message_start", "message": {"id": "msg_long", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}) + '\n\n')
    w.write('event: content_block_start\ndata: ' + json.dumps({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}) + '\n\n')
    for k in range(n):
        w.write('event: content_block_delta\ndata: ' + json.dumps({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "word%d and more text. " % k}}) + '\n\n')
    w.write('event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n')
    w.write('event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n')
elif shape == 'an-sse-blocks':
    # one message of many tool_use blocks + text blocks
    w.write('event: message_start\ndata: ' + json.dumps({"type": "message_start", "message": {"id": "msg_blocks", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}) + '\n\n')
    for k in range(n):
        i = 2 * k
        w.write('event: content_block_start\ndata: ' + json.dumps({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}) + '\n\n')
        w.write('event: content_block_delta\ndata: ' + json.dumps({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": "Let me look up item %d. " % k}}) + '\n\n')
        w.write('event: content_block_stop\ndata: {"type":"content_block_stop","index":%d}\n\n' % i)
        w.write('event: content_block_start\ndata: ' + json.dumps({"type": "content_block_start", "index": i + 1, "content_block": {"type": "tool_use", "id": "toolu_%d" % k, "name": "lookup", "input": {}}}) + '\n\n')
        w.write('event: content_block_delta\ndata: ' + json.dumps({"type": "content_block_delta", "index": i + 1, "delta": {"type": "input_json_delta", "partial_json": '{"item": %d}' % k}}) + '\n\n')
        w.write('event: content_block_stop\ndata: {"type":"content_block_stop","index":%d}\n\n' % (i + 1))
    w.write('event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n')
elif shape == 'an-sse-many':
    # one stream file of many messages
    for k in range(n):
        w.write('event: message_start\ndata: ' + json.dumps({"type": "message_start", "message": {"id": "msg_%d" % k, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}) + '\n\n')
        w.write('event: content_block_start\ndata: ' + json.dumps({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_%d" % k, "name": "lookup", "input": {}}}) + '\n\n')
        w.write('event: content_block_delta\ndata: ' + json.dumps({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"item": %d}' % k}}) + '\n\n')
        w.write('event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n')
        w.write('event: content_block_start\ndata: ' + json.dumps({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}) + '\n\n')
        w.write('event: content_block_delta\ndata: ' + json.dumps({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Item %d is in stock." % k}}) + '\n\n')
        w.write('event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n')
        w.write('event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n')
elif shape == 'an-batch':
    ls = lines('inputs/anthropic-batch/msgbatch-results.jsonl')
    for k in range(n):
        for l in ls:
            w.write(uniq(l, k).replace('"custom_id":"', '"custom_id":"c%x-' % k) + '\n')
elif shape == 'an-array':
    o = json.load(open(T + 'formats/anthropic-messages/anthropic-web-search-tool.1.json'))
    s = json.dumps(o)
    w.write('[')
    for k in range(n):
        w.write((',' if k else '') + uniq(s, k) + '\n')
    w.write(']')
elif shape.startswith('cassette-'):
    src = {'cassette-anthropic': 'formats/anthropic-messages/test_anthropic_web_search_tool.yaml',
           'cassette-openai': 'formats/openai-responses/test_openai_responses_model_file_search_tool_with_results.yaml',
           'cassette-gemini': 'formats/gemini-grounding/test_google_model_web_search_tool.yaml',
           'cassette-chat': 'inputs/openai-chat/gpt-fn-test_function_completion.yaml'}[shape]
    txt = open(T + src).read()
    i = txt.index('interactions:\n') + len('interactions:\n')
    body = txt[i:]
    # body ends possibly with 'version: 1'
    m = re.search(r'^version:.*$', body, re.M)
    tail = ''
    if m:
        tail = body[m.start():]; body = body[:m.start()]
    w.write(txt[:i])
    for k in range(n):
        w.write(uniq(body, k))
    w.write(tail)
elif shape in ('ls-lines-one', 'ls-lines-many'):
    ls = lines('inputs/langsmith/thread-runs.jsonl')
    for k in range(n):
        for l in ls:
            s = uniq(l, k)
            if shape == 'ls-lines-many': s = s.replace('"thread-42"', '"thread-42-%d"' % k)
            w.write(s + '\n')
elif shape in ('ls-batch', 'ls-batch-thread'):
    o = json.load(open(T + 'inputs/langsmith/tool-error-batch.json'))
    post, patch = [], []
    for k in range(n):
        c = json.loads(uniq(json.dumps(o), k))
        if shape == 'ls-batch-thread':
            for r in c['post']:
                r.setdefault('extra', {}).setdefault('metadata', {})['thread_id'] = 'thread-one'
        post += c['post']; patch += c['patch']
    json.dump({'post': post, 'patch': patch}, w)
elif shape in ('ls-list',):
    arr = json.load(open(T + 'inputs/langsmith/agent-list-runs.json'))
    if isinstance(arr, dict): arr = arr['runs']
    w.write('[')
    first = True
    for k in range(n):
        for r in arr:
            w.write(('' if first else ',') + uniq(json.dumps(r), k) + '\n'); first = False
    w.write(']')
elif shape == 'ls-tree-wide':
    # one run tree whose root holds N copies of the sample's children
    t = json.load(open(T + 'inputs/langsmith/rag-run-tree.json'))
    s = json.dumps(t.get('child_runs', []))
    allk = []
    for k in range(n): allk += json.loads(uniq(s, k))
    t['child_runs'] = allk
    json.dump(t, w)
elif shape in ('lf-one',):
    t = json.load(open(T + 'formats/langfuse-trace-export/claude-agent-2025-12-22.trace.json'))
    obs = t['observations']
    s = json.dumps(obs)
    allo = []
    for k in range(n):
        o = json.loads(uniq(s, k))
        for x in o:
            x['id'] = '%s-%x' % (x['id'], k)
            if x.get('parentObservationId'): x['parentObservationId'] = '%s-%x' % (x['parentObservationId'], k)
        allo += o
    t['observations'] = allo
    json.dump(t, w)
elif shape in ('otlp-line-one', 'otlp-line-many', 'otlp-one-trace', 'otlp-one-line'):
    if shape == 'otlp-line-one':
        for k in range(n): w.write(line(k, conv='conv-one') + '\n')
    elif shape == 'otlp-line-many':
        for k in range(n): w.write(line(k, conv='conv-%d' % k) + '\n')
    elif shape == 'otlp-one-trace':
        # one trace, n invoke_agent subtrees
        sp = []
        for k in range(n): sp += spans(0, k, conv='conv-one')
        w.write(json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": sp}]}]}))
    else:
        sp = []
        for k in range(n): sp += spans(k, 0, conv='conv-one')
        w.write(json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": sp}]}]}))
elif shape == 'gemini-array':
    # one streamed answer of many chunks, then many responses
    for_one = []
    w.write('[')
    for k in range(n):
        c = {"candidates": [{"content": {"role": "model", "parts": [{"text": "part %d of the answer. " % k}]}, "index": 0}], "responseId": "resp-long", "modelVersion": "gemini-2.5-flash"}
        w.write((',' if k else '') + json.dumps(c) + '\n')
    c = {"candidates": [{"content": {"role": "model", "parts": [{"text": "end."}]}, "finishReason": "STOP", "index": 0}], "responseId": "resp-long", "modelVersion": "gemini-2.5-flash"}
    w.write(',' + json.dumps(c) + ']')
elif shape == 'gemini-array-many':
    g = json.load(open(T + 'formats/gemini-grounding/prism-search-grounding-1.json'))
    w.write('[')
    for k in range(n):
        g2 = copy.deepcopy(g); g2['responseId'] = 'r%d' % k
        w.write((',' if k else '') + json.dumps(g2) + '\n')
    w.write(']')
elif shape in ('lf-obs-list', 'lf-obs-list-one', 'lf-traces-page'):
    src = 'inputs/langfuse-api/traces-page.json' if shape == 'lf-traces-page' else 'inputs/langfuse-api/observations.json'
    o = json.load(open(T + src))
    data = []
    for k in range(n):
        for d in json.loads(json.dumps(o['data'])):
            if shape == 'lf-traces-page':
                d['id'] = '%s%x' % (d['id'][:24], k)
                for ob in d.get('observations') or []:
                    if isinstance(ob, dict):
                        ob['id'] = '%s-%x' % (ob['id'], k); ob['traceId'] = d['id']
                        if ob.get('parentObservationId'): ob['parentObservationId'] = '%s-%x' % (ob['parentObservationId'], k)
            else:
                d['id'] = '%s-%x' % (d['id'], k)
                if d.get('parentObservationId'): d['parentObservationId'] = '%s-%x' % (d['parentObservationId'], k)
                if shape == 'lf-obs-list': d['traceId'] = '%s%x' % (d['traceId'][:24], k)
            data.append(d)
    o['data'] = data
    json.dump(o, w)
elif shape == 'desktop':
    txt = open(T + 'formats/claude-desktop-log/mcp-server-weather.log').read()
    for k in range(n): w.write(txt)
else:
    sys.exit('unknown shape ' + shape)
w.close()
