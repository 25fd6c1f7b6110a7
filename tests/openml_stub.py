"""A small stub of OpenML's REST API on 127.0.0.1, for openml-python's real HTTP code and benchirt's downloads.

It serves one classification task (``TASK``: 40 rows, 4 folds, classes a/b) with ``N_RUNS`` evaluated runs:
evaluation listing pages (refusing more than 1,000 rows a page, as the server does), user names, the
task, its split, its dataset's description, run descriptions and predictions files. Chosen downloads
answer 504 once (``flaky``) or always 500 (``broken``). ``hits`` counts every request.
"""
from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TASK, DATASET, N_ROWS, N_FOLDS, N_RUNS = 31, 310, 40, 4, 1_203
CLASSES = ("a", "b")
OML = 'xmlns:oml="http://openml.org/openml"'


def flow_of(run_id: int) -> int:
    return 500 + run_id % 7


def correct(run_id: int, row: int) -> bool:
    """Run r errs on rows where (row * 7 + r) % m == 0, m = flow − 497 + r % 2: flows and runs differ."""
    return (row * 7 + run_id) % (flow_of(run_id) - 497 + run_id % 2) != 0


def accuracy(run_id: int) -> float:
    return sum(correct(run_id, row) for row in range(N_ROWS)) / N_ROWS


def truth(row: int) -> str:
    return CLASSES[row % 2]


def fold(row: int) -> int:
    return row % N_FOLDS


#: The page nginx (OpenML's front server) answers a gateway time-out with: not well-formed XML (``<hr>``).
NGINX_504 = ("<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway "
             "Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def _error(code: int, message: str) -> str:
    return f'<oml:error {OML}><oml:code>{code}</oml:code><oml:message>{message}</oml:message></oml:error>'


class Stub(ThreadingHTTPServer):
    def __init__(self, flaky: set[str] = frozenset(), broken: set[str] = frozenset()):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hits: list[str] = []
        self.flaky, self.broken, self.failed_once = set(flaky), set(broken), set()
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def _send(self, status: int, body: str, kind: str = "text/xml") -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server's name)
        server: Stub = self.server
        path = self.path.split("?", 1)[0]
        server.hits.append(path)
        if path in server.broken:
            return self._send(500, "<html>Internal Server Error</html>", "text/html")
        if path in server.flaky and path not in server.failed_once:
            server.failed_once.add(path)
            return self._send(504, NGINX_504, "text/html")
        for pattern, answer in _ROUTES:
            match = re.fullmatch(pattern, path)
            if match:
                status, body = answer(server, *match.groups())
                return self._send(status, body)
        return self._send(404, _error(999, f"unknown path {path}"))


def _listing(server, filters):
    parts = filters.strip("/").split("/")
    given = dict(zip(parts[::2], parts[1::2]))
    limit, offset, task = int(given.get("limit", 10_000)), int(given.get("offset", 0)), given.get("task", "0")
    if limit > 1000:
        return 412, _error(544, "Too many results: limit is at most 1000")
    runs = [r for r in range(1, N_RUNS + 1) if "flow" not in given or str(flow_of(r)) in given["flow"].split(",")]
    runs = runs[offset: offset + limit] if int(task) == TASK else []
    if not runs:
        return 412, _error(542, "No results")
    items = "".join(
        f"<oml:evaluation><oml:run_id>{r}</oml:run_id><oml:task_id>{TASK}</oml:task_id><oml:setup_id>{9000 + r}"
        f"</oml:setup_id><oml:flow_id>{flow_of(r)}</oml:flow_id><oml:flow_name>stub.Flow{flow_of(r)}(1)</oml:flow_name>"
        f"<oml:data_id>{DATASET}</oml:data_id><oml:data_name>stubdata</oml:data_name><oml:function>predictive_accuracy"
        f"</oml:function><oml:upload_time>2020-01-01 00:00:00</oml:upload_time><oml:uploader>{1 + r % 2}</oml:uploader>"
        f"<oml:value>{accuracy(r)}</oml:value></oml:evaluation>" for r in runs)
    return 200, f"<oml:evaluations {OML}>{items}</oml:evaluations>"


def _users(server, ids):
    users = "".join(f"<oml:user><oml:id>{i}</oml:id><oml:username>user{i}</oml:username></oml:user>"
                    for i in ids.split(","))
    return 200, f"<oml:users {OML}>{users}</oml:users>"


def _task(server, task):
    return 200, (f"<oml:task {OML}><oml:task_id>{task}</oml:task_id><oml:input name=\"source_data\"><oml:data_set>"
                 f"<oml:data_set_id>{DATASET}</oml:data_set_id><oml:target_feature>class</oml:target_feature>"
                 f"</oml:data_set></oml:input><oml:input name=\"estimation_procedure\"><oml:estimation_procedure>"
                 f"<oml:type>crossvalidation</oml:type><oml:data_splits_url>{server.url}/api_splits/get/{task}/"
                 f"Task_{task}_splits.arff</oml:data_splits_url><oml:parameter name=\"number_repeats\">1</oml:parameter>"
                 f"<oml:parameter name=\"number_folds\">{N_FOLDS}</oml:parameter></oml:estimation_procedure>"
                 f"</oml:input></oml:task>")


def _splits(server, task):
    rows = []
    for f in range(N_FOLDS):
        for row in range(N_ROWS):
            rows.append(f"{'TEST' if fold(row) == f else 'TRAIN'},{row},0,{f}")
    return 200, ("@relation splits\n@attribute type {TRAIN,TEST}\n@attribute rowid numeric\n"
                 "@attribute repeat numeric\n@attribute fold numeric\n@data\n" + "\n".join(rows) + "\n")


def _dataset(server, did):
    return 200, (f"<oml:data_set_description {OML}><oml:id>{did}</oml:id><oml:name>stubdata</oml:name>"
                 f"<oml:version>1</oml:version><oml:file_id>{did}0</oml:file_id>"
                 f"<oml:default_target_attribute>class</oml:default_target_attribute></oml:data_set_description>")


def _run(server, run_id):
    r = int(run_id)
    return 200, (f"<oml:run {OML}><oml:run_id>{r}</oml:run_id><oml:uploader>{1 + r % 2}</oml:uploader>"
                 f"<oml:task_id>{TASK}</oml:task_id><oml:flow_id>{flow_of(r)}</oml:flow_id><oml:flow_name>"
                 f"stub.Flow{flow_of(r)}(1)</oml:flow_name><oml:setup_id>{9000 + r}</oml:setup_id><oml:input_data>"
                 f"<oml:dataset><oml:did>{DATASET}</oml:did><oml:name>stubdata</oml:name></oml:dataset></oml:input_data>"
                 f"<oml:output_data><oml:file><oml:file_id>{100000 + r}</oml:file_id><oml:name>predictions</oml:name>"
                 f"</oml:file></oml:output_data></oml:run>")


def _download(server, file_id):
    r = int(file_id) - 100000
    lines = ["@RELATION openml_task_predictions", "@ATTRIBUTE repeat NUMERIC", "@ATTRIBUTE fold NUMERIC",
             "@ATTRIBUTE sample NUMERIC", "@ATTRIBUTE row_id NUMERIC", "@ATTRIBUTE prediction {a, b}",
             "@ATTRIBUTE correct {a, b}", "@ATTRIBUTE confidence.a NUMERIC", "@ATTRIBUTE confidence.b NUMERIC", "@DATA"]
    for row in reversed(range(N_ROWS)):
        label = truth(row) if correct(r, row) else CLASSES[1 - CLASSES.index(truth(row))]
        p = 0.9 if label == "a" else 0.1
        lines.append(f"0,{fold(row)},0,{row},{label},{truth(row)},{p},{1 - p}")
    return 200, "\n".join(lines) + "\n"


_ROUTES = (
    (r"/api/v1/xml/evaluation/list/function/predictive_accuracy((?:/[^/]+/[^/]+)*)", _listing),
    (r"/api/v1/xml/user/list/user_id/([\d,]+)", _users),
    (r"/api/v1/xml/task/(\d+)", _task),
    (r"/api_splits/get/(\d+)/[^/]+", _splits),
    (r"/api/v1/xml/data/(\d+)", _dataset),
    (r"/api/v1/xml/run/(\d+)", _run),
    (r"/data/download/(\d+)", _download),
)
