"""The docs site: `mkdocs build --strict` builds it, and headless Chromium renders it (issue 34).

Skips, with the reason, without mkdocs (the [docs] extra), selenium, or Debian's chromium and
chromium-driver. Screenshots go to $FGRAD_DOCS_SCREENSHOTS, or to pytest's tmp dir otherwise.
"""
import functools
import http.server
import inspect
import os
import pathlib
import shutil
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings-python is not installed")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout}\n{run.stderr}"
    return out


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install -e '.[docs]'")
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("Chromium is absent: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,1000", f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    where = os.environ.get("FGRAD_DOCS_SCREENSHOTS")
    path = pathlib.Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_numpy_reference_lists_runtime_names(site):
    import fgrad.numpy as fnp
    page = (site / "api" / "fgrad.numpy" / "index.html").read_text()
    assert 'id="fgrad.numpy.sum"' in page and "The differentiable version of" in page
    functions = [n for n in dir(fnp) if not n.startswith("_") and inspect.isfunction(getattr(fnp, n))]
    missing = [n for n in functions if f'id="fgrad.numpy.{n}"' not in page]
    assert not missing, f"fgrad.numpy's API page lacks {missing}"


def test_grad_reference_renders(served, browser, shots):
    from selenium.webdriver.common.by import By
    browser.get(f"{served}/api/fgrad/#fgrad.grad")
    heading = browser.find_element(By.ID, "fgrad.grad")
    entry = heading.find_element(By.XPATH, "./ancestor::div[contains(@class, 'doc-function')][1]")
    browser.execute_script("arguments[0].scrollIntoView()", heading)
    browser.save_screenshot(str(shots / "api-fgrad-grad.png"))
    text = entry.text
    assert "grad(" in text and "argnums" in text and "has_aux" in text, text[:500]  # the signature
    assert "Examples" in text and "fgrad.grad(lambda x: fnp.sum(fnp.sin(x)))" in text, text[:2000]
    assert entry.is_displayed()


def test_search_finds_vmap(served, browser, shots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(f"{served}/")
    box = WebDriverWait(browser, 20).until(ec.element_to_be_clickable((By.CSS_SELECTOR, "input.md-search__input")))
    box.click()  # the header's search box (the window is wide enough to show it)
    box.send_keys("vmap")
    results = WebDriverWait(browser, 30).until(
        lambda d: [r for r in d.find_elements(By.CSS_SELECTOR, ".md-search-result__item") if "vmap" in r.text.lower()])
    browser.save_screenshot(str(shots / "search-vmap.png"))
    links = [a.get_attribute("href") for r in results for a in r.find_elements(By.TAG_NAME, "a")]
    assert any("batching" in h or "vmap" in h for h in links), links
