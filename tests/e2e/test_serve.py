"""End-to-end test of `junglezero serve` in headless Chromium.

Starts the server on a free port, opens the page and drives it by clicking squares as a person
would: a whole game against alpha-beta depth 1, then a position with a one-move den win whose
analysis must put that move on top. Screenshots go to $JZ_E2E_OUT.

Environment: JZ_BINARY (the junglezero binary), JZ_MODEL (optional .jzm network), JZ_E2E_OUT
(output directory), CHROMIUM and CHROMEDRIVER (paths; default /usr/bin/chromium and
/usr/bin/chromedriver).
"""

import os
import random
import re
import subprocess
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

BINARY = os.environ.get("JZ_BINARY", "target/release/junglezero")
MODEL = os.environ.get("JZ_MODEL") or None
OUT = Path(os.environ.get("JZ_E2E_OUT", "target/e2e"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")

# Red to move; the Red elephant on d8 enters Blue's den with d8d9 (and nothing else wins now).
DEN_WIN_FEN = "l5t/1d1E1c1/r1p1w1e/7/7/7/2W1P1R/1C3D1/T5L w 0 1"


@pytest.fixture(scope="module")
def server():
    args = [BINARY, "serve", "--port", "0"]
    if MODEL:
        args += ["--model", MODEL]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    m = re.search(r"http://[^ ]+/", line)
    if not m:
        proc.kill()
        pytest.fail(f"the server did not print its URL: {line!r}")
    yield m.group(0)
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    OUT.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def square(driver, name):
    return driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{name}"]')


def open_page(driver, url):
    driver.get(url)
    WebDriverWait(driver, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .piece")) == 16)


def test_a_whole_game_against_alphabeta_depth_1(server, browser):
    open_page(browser, server)
    Select(browser.find_element(By.ID, "red-player")).select_by_value("human")
    Select(browser.find_element(By.ID, "blue-player")).select_by_value("alphabeta")
    depth = browser.find_element(By.ID, "ab-depth")
    depth.clear()
    depth.send_keys("1")
    browser.find_element(By.ID, "new-game").click()
    rng = random.Random(7)
    board = browser.find_element(By.ID, "board")
    result = browser.find_element(By.ID, "result")
    plies = 0
    deadline = time.time() + 600
    while time.time() < deadline:
        # Red's turn (the board lists the moves a human may make) or the end.
        WebDriverWait(browser, 60).until(lambda d: board.get_attribute("data-legal") or result.is_displayed())
        if result.is_displayed():
            break
        legal = board.get_attribute("data-legal").split()
        # Head for Blue's den: the move that ends highest up the board, ties at random.
        top = max(int(m[3:]) for m in legal)
        mv = rng.choice([m for m in legal if int(m[3:]) == top])
        square(browser, mv[:2]).click()
        target = square(browser, mv[2:])
        assert "target" in target.get_attribute("class"), f"{mv[2:]} is not shown as a destination of {mv[:2]}"
        before = browser.find_element(By.ID, "moves-text").get_attribute("value")
        target.click()
        plies += 1
        # The move is on the page (the move list grew and ends with it, or with it and the
        # engine's reply) before the next turn is read. Only "mv in the list" passed at once
        # when the same move had been played before, and the next turn then read the position
        # the move was played from.
        WebDriverWait(browser, 30).until(lambda d: (text := d.find_element(By.ID, "moves-text").get_attribute("value")) != before and mv in text.split()[-2:])
    assert result.is_displayed(), "the game did not end in time"
    assert result.get_attribute("data-reason") in {"den", "annihilation", "no-moves", "repetition", "no-capture-limit", "move-cap"}
    assert result.text.strip(), "the result banner names no result"
    moves = browser.find_element(By.ID, "moves-text").get_attribute("value")
    assert plies >= 1 and moves.startswith("1. ")
    browser.save_screenshot(str(OUT / "play.png"))


def test_analysis_puts_the_den_win_on_top(server, browser):
    open_page(browser, server)
    for side in ("red", "blue"):
        Select(browser.find_element(By.ID, f"{side}-player")).select_by_value("human")
    fen = browser.find_element(By.ID, "fen-input")
    fen.clear()
    fen.send_keys(DEN_WIN_FEN)
    browser.find_element(By.ID, "set-fen").click()
    WebDriverWait(browser, 20).until(lambda d: square(d, "d8").find_elements(By.CSS_SELECTOR, ".piece.red.elephant"))
    browser.find_element(By.CSS_SELECTOR, '.tabs [data-tab="analysis"]').click()
    sims = browser.find_element(By.ID, "an-sims")
    sims.clear()
    sims.send_keys("200")
    browser.find_element(By.ID, "analyse-on").click()
    WebDriverWait(browser, 60).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-analysis") == "done")
    assert browser.find_element(By.ID, "ab-best").text == "d8d9"
    assert browser.find_element(By.ID, "ab-score").text.startswith("mate")
    # The best move is marked on the board.
    for sq in ("d8", "d9"):
        assert "best" in square(browser, sq).get_attribute("class")
    if MODEL:
        # The network's own outputs are shown too (a barely trained network's search need not
        # find the den entry, so only their presence is checked).
        assert browser.find_elements(By.CSS_SELECTOR, "#mcts-table tbody tr"), "no MCTS root statistics"
        assert browser.find_elements(By.CSS_SELECTOR, "#board .heat"), "no policy heat map on the board"
        assert "win" in browser.find_element(By.ID, "wdl-text").text
    browser.save_screenshot(str(OUT / "analysis.png"))
