#!/usr/bin/env python3
"""Host tests of out/report.html (tests/harness/html.py, tests/report).

  python3 tests/host/report_test.py [-v]

The page is built from tests/host/report_fixture.json (real results, see
FIXTURE below) and loaded in a real headless browser, Debian's chromium,
driven over the DevTools protocol with the standard library alone (an
HTTP request for the target, then a minimal WebSocket client): the page
must load with no console error, no exception and no network request, and
a real mouse click on every cell of the matrix must open that cell's
results.  Without chromium the test tries to install it (apt-get); only
when that fails do the browser tests print SKIP and pass.  The tests that
need no browser (details missing any key or holding odd values, the plot
budget) always run; a result whose own keys are missing or of the wrong
type never reaches the page (model.load_matrix refuses it:
tests/host/model_test.py).

Exit status: 0 when every test passed or was skipped, 1 otherwise.
"""

import base64
import copy
import glob
import http.client
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests"))
from harness import html, model  # noqa: E402

# Made from real runs (tests/run on stock, 6ce3dd6eec and ffe81d45322c):
# one or two results of each family, so every kind of section and plot is
# on the page.  Only watch_samples is not from a run yet (no guest script
# passes rqpathctl watch --samples so far): the livelocked result carries
# samples in the documented format, made from its own watch window (see
# _comment in the file).
FIXTURE = os.path.join(TOP, "tests", "host", "report_fixture.json")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
# Seconds to wait for the browser, and for one DevTools answer.
START_TIMEOUT = 60
CALL_TIMEOUT = 60


# ---- a browser ---------------------------------------------------------------------

def find_chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def install_chromium():
    """chromium, installed with apt-get if need be; (path, None) or (None, why)."""
    path = find_chromium()
    if path:
        return path, None
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    why = "apt-get is missing"
    for cmd in (["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"],
                ["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]):
        try:
            p = subprocess.run(sudo + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            return None, f"{' '.join(cmd)}: {e}"
        why = f"{' '.join(cmd)}: exit {p.returncode}: {p.stdout.strip().splitlines()[-1:]}"
        if find_chromium():
            return find_chromium(), None
    return None, why


class WebSocket:
    """The client side of RFC 6455, as much as DevTools needs: text frames
    out (masked, as a client must), text, continuation, ping and close in."""

    def __init__(self, url, timeout):
        u = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the connection during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"WebSocket handshake refused: {head[:200]!r}")

    def send(self, text):
        payload = text.encode()
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next text message (fragments joined)."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the WebSocket")
            if opcode == 0x9:
                self.sock.sendall(struct.pack("!BB", 0x8A, 0x80 | len(data)) + b"\0\0\0\0" + data)
                continue
            if opcode in (0x1, 0x0):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """A headless chromium with a fresh profile and one page to drive."""

    def __init__(self, exe):
        self.profile = tempfile.mkdtemp(prefix="rqpath-chromium-")
        self.ws = None
        self.proc = subprocess.Popen([exe] + CHROMIUM_FLAGS + [
            f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
            "--window-size=1400,1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.port = self._port()
            self.ws = WebSocket(self._page_socket_url(), CALL_TIMEOUT)
        except BaseException:
            self.close()      # no browser left behind by a failed start
            raise
        self.next_id = 0
        self.events = []

    def _port(self):
        # chromium writes the port it chose to the profile (first line).
        path = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.proc.returncode} before DevTools listened")
            try:
                with open(path) as f:
                    line = f.readline().strip()
                if line.isdigit():
                    return int(line)
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"chromium did not open DevTools within {START_TIMEOUT} s")

    def _page_socket_url(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                conn.request("GET", "/json/list")
                targets = json.loads(conn.getresponse().read())
            except (OSError, ValueError):
                targets = []
            finally:
                conn.close()
            pages = [t for t in targets if t.get("type") == "page" and t.get("webSocketDebuggerUrl")]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
            time.sleep(0.2)
        raise RuntimeError("chromium has no page to drive")

    def call(self, method, **params):
        """Send one command and return its result; events that arrive
        meanwhile are kept in self.events."""
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        deadline = time.monotonic() + CALL_TIMEOUT
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError(f"{method}: no answer within {CALL_TIMEOUT} s")

    def wait_event(self, method, timeout=CALL_TIMEOUT):
        """The first METHOD event since self.events was last cleared."""
        deadline = time.monotonic() + timeout
        while True:
            for e in self.events:
                if e["method"] == method:
                    return e
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {method} within {timeout} s")
            self.events.append(json.loads(self.ws.recv()))

    def js(self, expression):
        """The value of a JavaScript expression (JSON-able); an exception in
        it fails the test."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"JavaScript failed: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def key(self, key, code, keycode):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                      windowsVirtualKeyCode=keycode)

    def close(self):
        if self.ws:
            self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def console_errors(events):
    """Every console error, uncaught exception and browser error log entry."""
    errors = []
    for e in events:
        p = e.get("params", {})
        if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append(f"console.{p['type']}: {[a.get('value', a.get('description')) for a in p.get('args', [])]}")
        elif e["method"] == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}")
        elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append(f"log: {p['entry'].get('text')} ({p['entry'].get('url', '')})")
    return errors


# ---- the tests -------------------------------------------------------------------------

def load_fixture():
    with open(FIXTURE) as f:
        return json.load(f)


def cells_of(matrix):
    """{(tree, variant, scenario, stage): [results]} as the page groups them."""
    cells = {}
    for r in matrix["results"]:
        key = (r["tree"], r["variant"], r["scenario"], r["stage"])
        cells.setdefault(key, []).append(r)
    return cells


CHROMIUM, NO_CHROMIUM = install_chromium()


class TimeProfile(unittest.TestCase):
    def test_waits_of_one_kind_are_summed(self):
        # A wait on a pid or a device is one kind of wait, whatever the
        # number: the profile must not list every pid on its own row.
        r = model.Result.from_json(load_fixture()["results"][0], "fixture")
        r.seconds = 10.0
        r.timing = {"workload": 10.0, "wait:pid 177": 2.0, "wait:pid 1839": 3.0, "wait:the rescan of 1:0:0:0": 1.0}
        prof = html.time_profile(model.Matrix(results=[r], boots=[], timing={}, meta={}))
        self.assertEqual(prof["waits"], {"wait:pid N": 5.0, "wait:the rescan of N:N:N:N": 1.0})


@unittest.skipIf(CHROMIUM is None, f"chromium cannot be installed: {NO_CHROMIUM}")
class ReportInBrowser(unittest.TestCase):
    """The fixture's page in a real browser."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rqpath-report-test-")
        cls.page = os.path.join(cls.tmp, "report.html")
        html.write_report(FIXTURE, cls.page, plot_budget_s=None)
        cls.matrix = load_fixture()
        cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        cls.browser = Browser(CHROMIUM)
        cls.addClassCleanup(cls.browser.close)
        b = cls.browser
        for domain in ("Runtime", "Log", "Page", "Network"):
            b.call(f"{domain}.enable")
        b.events.clear()
        b.call("Page.navigate", url="file://" + cls.page)
        b.wait_event("Page.loadEventFired")
        # Whatever the page does at load (and the plots' layout) is done.
        b.js("new Promise(r => requestAnimationFrame(() => setTimeout(r, 100)))")
        cls.load_events = list(b.events)

    @classmethod
    def tearDownClass(cls):
        shot = os.environ.get("RQPATH_REPORT_SCREENSHOT")
        if shot:
            # A picture of one open cell, for a person to look at.
            cls.browser.js("(document.querySelector('.cell.fail') || "
                           "document.querySelector('.cell[data-cell]')).click(); 0")
            data = cls.browser.call("Page.captureScreenshot", format="png")["data"]
            with open(shot, "wb") as f:
                f.write(base64.b64decode(data))

    def test_loads_without_console_errors(self):
        self.assertEqual(console_errors(self.load_events), [])
        self.assertEqual(self.browser.js("document.title.startsWith('rqpath matrix')"), True)

    def test_needs_no_network(self):
        urls = [e["params"].get("request", {}).get("url", "") for e in self.load_events
                if e["method"] == "Network.requestWillBeSent"]
        self.assertEqual([u for u in urls if not u.startswith(("file://" + self.page, "data:"))], [])

    def test_a_cell_per_scenario_and_stage(self):
        n = self.browser.js("document.querySelectorAll('button.cell[data-cell]').length")
        self.assertEqual(n, len(cells_of(self.matrix)))

    def test_every_cell_opens_its_details(self):
        b = self.browser
        cells = cells_of(self.matrix)
        ids = b.js("[...document.querySelectorAll('button.cell[data-cell]')].map(c => c.dataset.cell)")
        self.assertTrue(ids)
        b.events.clear()
        for cid in ids:
            with self.subTest(cell=cid):
                # Where the cell is on the screen, and what its row and column say.
                where = b.js(f"""(() => {{
                    const c = document.querySelector('[data-cell="{cid}"]');
                    c.scrollIntoView({{block: 'center', inline: 'center'}});
                    const r = c.getBoundingClientRect(), td = c.closest('td'), tr = c.closest('tr');
                    const col = [...tr.children].indexOf(td);
                    const table = c.closest('table');
                    return {{x: r.left + r.width / 2, y: r.top + r.height / 2,
                            scenario: tr.querySelector('th').textContent,
                            stage: table.querySelectorAll('thead th')[col].textContent,
                            block: c.closest('section').querySelector('h2').textContent}};
                }})()""")
                b.click(where["x"], where["y"])
                shown = b.js(f"""(() => {{
                    const p = document.getElementById('panel'), s = document.getElementById('{cid}');
                    const visible = e => !!e && !e.hidden && e.offsetWidth > 0 && e.offsetHeight > 0;
                    return {{panel: visible(p), section: visible(s), showing: p.dataset.showing || null,
                            others: [...document.querySelectorAll('.cell-details')].filter(visible).length,
                            scenario: s.dataset.scenario, stage: s.dataset.stage, text: s.textContent,
                            raw: [...s.querySelectorAll('details.raw pre')].map(e => e.textContent)}};
                }})()""")
                self.assertTrue(shown["panel"], "the details panel did not open")
                self.assertTrue(shown["section"], "the cell's details are not visible")
                self.assertEqual(shown["showing"], cid)
                self.assertEqual(shown["others"], 1, "another cell's details are visible too")
                self.assertEqual((shown["scenario"], shown["stage"]), (where["scenario"], where["stage"]))
                tree = where["block"].split()[1]
                variant = "debug" if "debug" in where["block"] else "normal"
                results = cells[(tree, variant, where["scenario"], where["stage"])]
                # Every result of the cell, with its boot and its raw details.
                for r in results:
                    self.assertIn(r["boot"], shown["text"])
                    self.assertIn(r["verdict"], shown["text"])
                self.assertEqual(sorted(json.dumps(json.loads(t), sort_keys=True) for t in shown["raw"]),
                                 sorted(json.dumps(r["details"], sort_keys=True) for r in results))
                b.key("Escape", "Escape", 27)
                self.assertEqual(b.js("document.getElementById('panel').hidden"), True,
                                 "Escape did not close the details")
        self.assertEqual(console_errors(b.events), [])

    def test_raw_details_are_collapsible(self):
        b = self.browser
        b.js("document.querySelector('button.cell[data-cell]').click(); 0")
        state = b.js("""(() => {
            const d = document.querySelector('.cell-details:not([hidden]) details.raw');
            const before = d.open;
            d.querySelector('summary').click();
            return [before, d.open, d.querySelector('pre').offsetHeight > 0];
        })()""")
        self.assertEqual(state, [False, True, True])
        b.key("Escape", "Escape", 27)

    def test_plots_are_drawn_for_every_family(self):
        plots = self.browser.js("[...document.querySelectorAll('figure.plot')].map(f => "
                                "[f.dataset.plot, f.querySelector('svg') !== null])")
        kinds = {k for k, has_svg in plots if has_svg}
        self.assertEqual(kinds, {"time profile", "livelock samples", "bad blocks", "failover cycles"})
        self.assertEqual(self.browser.js("document.querySelectorAll('.render-error').length"), 0)

    def test_a_link_to_a_cell_opens_it(self):
        b = self.browser
        b.js("location.hash = '#cell-3'; 0")
        self.assertEqual(b.js("document.getElementById('panel').dataset.showing"), "cell-3")
        # The same link followed from elsewhere: a fresh load.
        b.events.clear()
        b.call("Page.navigate", url="about:blank")
        b.wait_event("Page.loadEventFired")
        b.events.clear()
        b.call("Page.navigate", url="file://" + self.page + "#cell-2")
        b.wait_event("Page.loadEventFired")
        self.assertEqual(b.js("document.getElementById('panel').dataset.showing"), "cell-2")
        self.assertEqual(console_errors(b.events), [])


class ReportWithoutBrowser(unittest.TestCase):
    """What needs no browser: the page is made whatever a result lacks."""

    def render(self, matrix, budget=None):
        """The page of MATRIX, a matrix file's JSON."""
        return html.render_page(model.Matrix.from_json(matrix, "test.json"), "test.json", plot_budget_s=budget)

    def test_a_mutants_run_shows_its_kill_matrix(self):
        matrix = load_fixture()
        self.assertNotIn("kill matrix", self.render(matrix))
        matrix["mutants"] = {"6.1": {
            "plug-busy-to-swq": {"killed": True, "cells": 3, "undecided": [],
                                 "killed_by": [{"scenario": "corruption-targeted", "verdict": "corrupted",
                                                "expected": "clean"}]},
            "free-no-sched-restart": {"killed": False, "cells": 3, "killed_by": [],
                                      "undecided": [{"scenario": "smoke", "verdict": "error",
                                                     "expected": "clean"}]}}}
        page = self.render(matrix)
        self.assertIn("mutants: the kill matrix", page)
        self.assertIn("corruption-targeted (corrupted)", page)
        self.assertIn("SURVIVED", page)
        self.assertIn("smoke (error)", page)
        matrix["mutants"] = {"6.1": "garbage"}
        self.assertIn("<main>", self.render(matrix))

    def test_details_missing_any_key(self):
        matrix = load_fixture()
        for r in matrix["results"]:
            for key in [f"details.{k}" for k in r["details"]] + [f"timing.{k}" for k in r["timing"]]:
                m = copy.deepcopy(matrix)
                target = [x for x in m["results"] if x["boot"] == r["boot"]
                          and x["scenario"] == r["scenario"]][0]
                part, _, name = key.partition(".")
                del target[part][name]
                with self.subTest(scenario=r["scenario"], missing=key):
                    page = self.render(m, budget=0)
                    self.assertNotIn('class="render-error"', page)
                    self.assertIn("</html>", page)

    def test_what_may_be_null(self):
        matrix = load_fixture()
        for r in matrix["results"]:
            r.update(kernel=None, seconds=None, timing={}, details={})
        page = self.render(matrix, budget=0)
        self.assertNotIn('class="render-error"', page)
        self.assertIn("</html>", page)

    def test_details_of_the_wrong_type(self):
        oddities = [None, "text", 7, [], {}, [1, "x", None], {"t": "x"}, True]
        matrix = load_fixture()
        seen = set()
        for i, r in enumerate(matrix["results"]):
            # Each key once, in the first result that has it.
            keys = [k for k in [f"details.{k}" for k in r["details"]] + [f"timing.{k}" for k in r["timing"]]
                    if k not in seen]
            seen.update(keys)
            for key in keys:
                for odd in oddities:
                    m = copy.deepcopy(matrix)
                    part, _, name = key.partition(".")
                    m["results"][i][part][name] = odd
                    with self.subTest(scenario=r["scenario"], key=key, value=repr(odd)):
                        self.assertIn("</html>", self.render(m, budget=0))

    def test_plotted_values_missing_or_odd(self):
        """What the plots read, entry by entry: a value missing or of the
        wrong type costs at most that point, never the plot."""
        fields = {"watch_samples": ("t", "in_flight", "ops"),
                  "cycles": ("cycle", "fault_s", "dropped_s", "restored_s", "back_s",
                             "down_seen", "io_after_return"),
                  "bad_blocks": ("lba", "lba_last", "class", "found_seconds")}
        sections = (html.section_livelock, html.section_corruption, html.section_failover)
        for r in load_fixture()["results"]:
            d = r["details"]
            lists = {"watch_samples": d.get("watch_samples"), "cycles": d.get("cycles"),
                     "bad_blocks": (d.get("rqcheck") or {}).get("bad_blocks")}
            for key, entries in lists.items():
                if not entries:
                    continue
                for field in fields[key]:
                    for odd in ("missing", None, "x", []):
                        saved = copy.deepcopy(entries[:3])
                        for e in entries[:3]:
                            if odd == "missing":
                                e.pop(field, None)
                            else:
                                e[field] = odd
                        with self.subTest(scenario=r["scenario"], key=key, field=field, value=repr(odd)):
                            plots = html.Plots(None)
                            page = plots.render("".join(f(d, plots) for f in sections))
                            self.assertNotIn('class="render-error"', page)
                            self.assertIn("<svg", page)
                        entries[:3] = saved

    def test_a_matrix_without_results_and_odd_facts(self):
        for m in ({"results": [], "boots": [], "timing": {}},
                  {"results": [], "boots": [{}, {"boot": 3}], "kernels": 5, "mutants": [], "accel": None,
                   "timing": {"boots": "x"}}):
            with self.subTest(matrix=m):
                self.assertIn("no results in this matrix", self.render(dict(m, schema=model.SCHEMA)))

    def test_plot_budget(self):
        page = self.render(load_fixture(), budget=0)
        self.assertNotIn('<figure class="plot"', page)
        self.assertIn("not drawn, the plot budget (0 s) ran out", page)
        self.assertIn("plots were left out to keep this report quick", page)

    def test_cli_writes_the_page(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.html")
            p = subprocess.run([os.path.join(TOP, "tests", "report"), FIXTURE, "-o", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                self.assertIn("</html>", f.read())
            self.assertEqual(glob.glob(os.path.join(tmp, "*.tmp")), [])
            p = subprocess.run([os.path.join(TOP, "tests", "report"), os.path.join(tmp, "missing.json")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 1)
            self.assertIn("missing.json: no such file", p.stderr)


if __name__ == "__main__":
    if CHROMIUM is None:
        print(f"SKIP: the browser tests: chromium cannot be installed ({NO_CHROMIUM})", flush=True)
    result = unittest.main(exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)
