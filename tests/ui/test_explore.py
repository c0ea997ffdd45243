"""Pilot tests: every key and command of the explorer, checking screen and trainer state."""

from __future__ import annotations

import os
import random
import threading

from textual.widgets import Checkbox, Input, TabbedContent

import bpe_tui
from bpe_tui.ui.app import ExplorerApp, default_config
from bpe_tui.ui.keys import COMMANDS, EXPLORE, INSPECT, TOUR, VIEWS, commands_for
from bpe_tui.ui.messages import Progressed
from bpe_tui.ui.screens.dialogs import (
    ConfirmScreen,
    FindScreen,
    GotoScreen,
    HelpScreen,
    PathScreen,
)
from bpe_tui.ui.screens.explore import ExploreScreen
from bpe_tui.ui.session import runner
from bpe_tui.ui.session.sessions import ExploreSession, InspectSession

from .conftest import CORPORA, DEMO, classic_app, demo_app, said, settle, settle_until, text_app


def history_rows(app) -> list[str]:
    view = app.history.view
    return [view.row_text(i) for i in range(view.count)]


async def test_first_frame_and_status():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done == 0
        assert "demo.txt" in app.status.text and "step 0/744" in app.status.text
        assert "bytes · gpt2 · lexical-max" in app.status.text
        assert "tokens 52,799 (step 0: 52,799)" in app.status.text
        # the pair table lists the top pairs in the trainer's order, the first is next
        top = tr.top_pairs(50)
        assert len(app.pairs.rows) == len(top) == 50
        assert app.pairs.pairs == [p for p, _ in top]
        assert app.pairs.rows[0][0] == "▶1"
        assert app.pairs.caption_text.startswith("next (merge 1): ·")
        assert app.corpus.words_view.count == tr.word_count
        assert app.focused is app.pairs.table


async def test_loading_from_paths_in_a_worker():
    app = ExplorerApp(paths=[str(DEMO)], config=default_config(None))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.session is not None and app.session.trainer.target_steps == 744
        assert app.session.preview.startswith(DEMO.read_text(encoding="utf-8")[:50])


async def test_step_keys_space_n_shift_n_ctrl_n():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        expected_first = tr.top_pairs(1)[0][0]
        await pilot.press("space")
        await settle(app, pilot)
        assert tr.steps_done == 1
        assert tr.history[0].pair == expected_first
        assert history_rows(app)[0].split()[:4] == ["●", "1", "·", "+"]
        await pilot.press("n")
        await settle(app, pilot)
        assert tr.steps_done == 2
        await pilot.press("N")
        await settle(app, pilot)
        assert tr.steps_done == 12
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert tr.steps_done == 112
        assert app.history.view.count == 112
        assert "step 112/744" in app.status.text
        assert app.pairs.pairs[0] == tr.top_pairs(1)[0][0]
        # the change column reflects the last step
        assert any(r[5] for r in app.pairs.rows)


async def test_undo_b_and_backspace_but_not_inside_inputs():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        await pilot.press("N")
        await settle(app, pilot)
        assert tr.steps_done == 10
        await pilot.press("b")
        await settle(app, pilot)
        assert tr.steps_done == 9
        await pilot.press("backspace")
        await settle(app, pilot)
        assert tr.steps_done == 8
        # undone merges stay listed (dimmed) for re-applying
        assert app.history.view.count == 10
        assert "undone" in str(app.history.query_one("#history-head").render())
        # backspace in the encode box edits text, it does not undo
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press("a", "b", "backspace")
        await settle(app, pilot)
        assert box.value == "a"
        assert tr.steps_done == 8
        # printable step keys type into the box
        await pilot.press("n", "space")
        assert box.value == "an "
        assert tr.steps_done == 8
        await pilot.press("escape")
        assert app.focused is app.pairs.table


async def test_undo_at_step_zero_is_harmless():
    app = demo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("b")
        await settle(app, pilot)
        assert app.session.trainer.steps_done == 0


async def test_run_to_target_with_progress_bar():
    app = demo_app()
    seen = []
    hook = lambda m: seen.append(m) if isinstance(m, Progressed) else None  # noqa: E731
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done == 744 and tr.vocab_size == 1000
        assert tr.finished
        assert "done: reached vocabulary size 1000" in app.status.text
        assert app.pairs.caption_text.startswith("finished")
        assert app.history.view.count == 744
        assert not app.query_one("#progress-row").display
        # batched: far fewer messages than merges
        assert 1 <= len(seen) < 100
        # running again at the target does nothing
        await pilot.press("r")
        await settle(app, pilot)
        assert tr.steps_done == 744


async def test_escape_cancels_a_run_and_keeps_what_was_done(monkeypatch):
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 12))) for _ in range(15_000)]
    app = text_app(" ".join(words), vocab_size=50_000)
    # The whole run (45,460 merges) can end in the two seconds pilot.press("r") takes: batches
    # of at most 50 merges, 10 ms apart, keep it going (for 9 s at least) while it is looked at.
    advance = ExploreSession.advance

    def slow_advance(self, max_steps, *args, **kwargs):
        threading.Event().wait(0.01)
        return advance(self, min(max_steps, 50), *args, **kwargs)

    monkeypatch.setattr(ExploreSession, "advance", slow_advance)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        for _ in range(600):  # the worker starts from a message: wait for it (30 s at most on a loaded machine)
            if app.session.busy:
                break
            await pilot.pause(0.05)
        assert app.session.busy
        assert app.query_one("#progress-row").display
        # the UI keeps answering while the worker runs: switch tabs, type in the encode box
        app.query_one(TabbedContent).active = "tab-stats"
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press("h", "i")
        assert box.value == "hi"
        await pilot.press("escape")
        await settle(app, pilot)
        tr = app.session.trainer
        assert not app.session.busy
        assert 0 < tr.steps_done < tr.target_steps
        assert f"step {tr.steps_done:,}/" in app.status.text
        assert app.history.view.count == tr.steps_done
        assert app.stats.counts == [e.count for e in tr.history]


async def test_escape_stops_a_run_within_a_step_or_two_however_slow_the_screen(monkeypatch):
    # A screen far slower than the worker, as with a 10 MB corpus on a loaded machine, made
    # deterministic: each batch is one merge (one progress message per merge), and the worker
    # may make only PER_SHOWN merges per batch the screen shows. Before, the messages queued
    # up faster than they were shown, escape waited behind them on its way through the
    # focused pane, and the trainer went on (thousands of merges in the walker's run). Now
    # one progress message is in flight at most and escape acts before any queue: the
    # trainer stops within the merges of the batch being shown. (Here the screen shows every
    # batch it is sent: its share of a run, which spaces the batches it is sent, is another
    # test's; the worker, held back, hardly runs.)
    monkeypatch.setattr(runner, "UI_SHARE", 1.0)
    PER_SHOWN = 5
    permits = threading.Semaphore(PER_SHOWN)
    real_advance = ExploreSession.advance
    real_apply = ExploreScreen.apply

    def held(self, max_steps, respect_target=True, deadline=None, stop=None):
        if threading.current_thread() is not threading.main_thread():
            while not permits.acquire(timeout=0.01):
                if stop is not None and stop():
                    return 0
        return real_advance(self, min(max_steps, 1), respect_target, deadline, stop)

    def shown(self, snap, idle, follow=True):
        real_apply(self, snap, idle, follow)
        if not idle:
            for _ in range(PER_SHOWN):
                permits.release()

    monkeypatch.setattr(ExploreSession, "advance", held)
    monkeypatch.setattr(ExploreScreen, "apply", shown)
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 12))) for _ in range(15_000)]
    app = text_app(" ".join(words), vocab_size=50_000)
    seen = []
    hook = lambda m: seen.append(m) if isinstance(m, Progressed) else None  # noqa: E731
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        app.pairs.table.focus()  # escape starts in a pane, as a person's would
        await pilot.press("r")
        for _ in range(1000):  # until the screen has shown a few batches
            if tr.steps_done >= 20 * PER_SHOWN:
                break
            await pilot.pause()
        assert app.session.busy and tr.steps_done >= 20 * PER_SHOWN
        at_escape = tr.steps_done
        await pilot.press("escape")
        await settle(app, pilot)
        assert not app.session.busy
        assert tr.steps_done - at_escape <= 2 * PER_SHOWN, f"{tr.steps_done - at_escape} merges after escape"
        assert f"step {tr.steps_done:,}/" in app.status.text
        assert any("cancelled after" in n.message for n in said(app))


async def test_goto_prompt_forward_and_back():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, GotoScreen)
        await pilot.press("5", "0", "enter")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done == 50
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("7", "enter")
        await settle(app, pilot)
        assert tr.steps_done == 7
        assert app.history.view.count == 50  # 43 undone merges stay listed
        # escape cancels the prompt
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, GotoScreen)
        assert tr.steps_done == 7


async def test_goto_past_the_target():
    app = classic_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.main.go_to_step(1000)
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.stop_reason.startswith("nothing left to merge")
        assert tr.steps_done == len(tr.history) == app.history.view.count


async def test_history_enter_rewinds_and_reapplies():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        view = app.history.view
        view.focus()
        await pilot.press("home", "down", "down", "enter")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done == 3
        assert view.count == 10
        assert history_rows(app)[2].startswith("●")
        await pilot.press("end", "enter")
        await settle(app, pilot)
        assert tr.steps_done == 10
        # highlighting a history row shows its token in the detail pane
        await pilot.press("up")
        await settle(app, pilot)
        assert app.detail.token_id == tr.history[8].new_id


async def test_selecting_a_pair_filters_the_corpus():
    app = classic_app("seed000.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        app.pairs.table.focus()
        await pilot.press("down", "enter")
        await settle(app, pilot)
        pair = app.pairs.pairs[1]
        assert app.corpus.pair == pair
        words = app.corpus.words_view.words
        assert words and set(words) == set(tr.words_containing(pair))
        assert "containing" in str(app.corpus.query_one("#corpus-pair").render())
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.corpus.pair is None
        assert app.corpus.words_view.count == tr.word_count


async def test_corpus_filter_text_view_and_touched_words():
    app = classic_app("seed000.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        tr = app.session.trainer
        await pilot.press("space")
        await settle(app, pilot)
        touched = set(tr.history[-1].words_touched)
        rows = [app.corpus.words_view.row_text(i) for i in range(app.corpus.words_view.count)]
        marked = {app.corpus.words_view.words[i] for i, r in enumerate(rows) if r.startswith("●")}
        assert marked == touched
        box = app.corpus.query_one("#corpus-filter", Input)
        box.focus()
        await pilot.press("w", "i", "d")
        await settle(app, pilot)
        words = [tr.word_text(w) for w in app.corpus.words_view.words]
        assert words and all("wid" in w for w in words)
        app.corpus.words_view.focus()
        await pilot.press("t")
        await settle(app, pilot)
        assert app.corpus.text_view
        assert app.query_one("#corpus-text").display
        body = str(app.query_one("#corpus-text-body").render())
        assert "low" in body
        await pilot.press("t")
        assert not app.corpus.text_view
        # the check box toggles too
        await pilot.click("#corpus-text-toggle")
        await settle(app, pilot)
        assert app.corpus.text_view
        app.corpus.words_view.focus()
        await pilot.press("x")
        assert box.value == ""


async def test_corpus_chip_click_and_enter_show_token_detail():
    app = classic_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        view = app.corpus.words_view
        view.focus()
        await pilot.press("home", "enter")
        await settle(app, pilot)
        assert app.query_one(TabbedContent).active == "tab-token"
        tr = app.session.trainer
        w = view.words[0]
        ids = tr.segmentation_ids(w)
        assert app.detail.token_id in ids
        # click on the first chip of the first row (after marker and frequency)
        await pilot.click(view, offset=(10, 0))
        await settle(app, pilot)
        assert app.detail.token_id == ids[0]


async def test_encode_box_tokens_ids_trace():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        box = app.query_one("#encode-input", Input)
        box.focus()
        await pilot.press(*"the lowest")
        await settle(app, pilot)
        table = app.session.table()
        enc = app.encode
        assert enc.ids == table.encode("the lowest")
        assert enc.summary.startswith(f"{len(enc.ids)} tokens")
        assert "chars/token" in enc.summary
        assert enc.trace_word == " lowest"
        assert len(enc.trace_lines) == 1 + len(table.trace(" lowest"))
        # moving the cursor traces another word
        await pilot.press("home")
        await settle(app, pilot)
        assert enc.trace_word == "the"
        # a step re-encodes with the new table
        app.pairs.table.focus()
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert enc.ids == app.session.table().encode("the lowest")
        # enter in the box shows the longest token of the word under the cursor
        box.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.query_one(TabbedContent).active == "tab-token"
        assert app.detail.token_id in enc.ids


async def test_encode_unknown_characters_in_chars_mode():
    app = classic_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.query_one("#encode-input", Input).focus()
        await pilot.press(*"lowz!")
        await settle(app, pilot)
        assert bpe_tui.UNK_ID in app.encode.ids
        assert "2 unknown" in app.encode.summary
        assert any("unk" in app.encode.query_one("#encode-view").row_text(i) for i in range(2))


async def test_dropout_toggle_and_probability():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        app.query_one("#encode-input", Input).value = "the newest and the widest"
        await settle(app, pilot)
        plain = list(app.encode.ids)
        await pilot.click("#dropout")
        await settle(app, pilot)
        assert app.query_one("#dropout", Checkbox).value
        assert "dropout p=0.1 seed 0" in app.encode.summary
        p = app.query_one("#dropout-p", Input)
        p.value = "1"
        await settle(app, pilot)
        # p = 1 skips every merge: one token per byte
        assert len(app.encode.ids) == len("the newest and the widest".encode())
        p.value = "0.5"
        await settle(app, pilot)
        table = app.session.table()
        assert app.encode.ids == table.encode("the newest and the widest", dropout=0.5, seed=0)
        app.query_one("#encode-input", Input).focus()
        await pilot.press("ctrl+r")
        assert app.encode.seed == 1
        await pilot.click("#dropout")
        await settle(app, pilot)
        assert app.encode.ids == plain


async def test_tokens_that_look_like_markup_and_bad_bytes_render():
    nasty = "[/b] [red]x[/red] [bold] \x00\x00 tab\there\nline\n" * 20 + "héllo wörld 日本語 🇩🇪 " * 20
    app = text_app(nasty, vocab_size=400)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        tr = app.session.trainer
        assert tr.steps_done > 20
        surfaces = {e.new_token for e in tr.history}
        assert any(b"[/" in s for s in surfaces)
        # draw every row of every list, and the text view
        for view in (app.history.view, app.corpus.words_view):
            for i in range(view.count):
                view.row_text(i)
        app.corpus.set_text_view(True)
        app.query_one("#encode-input", Input).value = "[/b] [red] \x00 日本 🇩🇪"
        await settle(app, pilot)
        assert app.encode.ids == app.session.table().encode("[/b] [red] \x00 日本 🇩🇪")
        # a partial UTF-8 byte shows as <0xNN>
        partial = next(i for i in range(256) if i >= 0x80)
        app.main.show_token(partial, True)
        await settle(app, pilot)
        assert "<0x80>" in app.detail.info
        for ev in tr.history:
            app.main.show_token(ev.new_id, False)
        await pilot.pause()
        app.save_screenshot(os.devnull)


async def test_save_native_confirm_overwrite_and_gpt2(tmp_path):
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("N")
        await settle(app, pilot)
        target = tmp_path / "t.json"
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, PathScreen)
        app.screen.query_one("#path-input", Input).value = str(target)
        await pilot.press("enter")
        await settle(app, pilot)
        saved = bpe_tui.load(str(target))
        assert saved.num_merges == 10
        assert saved.merges == app.session.trainer.table.merges
        before = target.read_bytes()
        # saving again asks; "n" keeps the old file
        app.pairs.table.focus()
        await pilot.press("N", "s")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert target.read_bytes() == before
        await pilot.press("s")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert bpe_tui.load(str(target)).num_merges == 20
        # every writer is offered; gpt2 writes a directory
        from bpe_tui.core.tables.formats import writers

        await pilot.press("s")
        await pilot.pause()
        select = app.screen.query_one("#format")
        assert [str(o[1]) if isinstance(o, tuple) else o for o in select._options if o[1] is not select.BLANK][-len(writers()):] == list(writers())
        select.value = "gpt2"
        app.screen.query_one("#path-input", Input).value = str(tmp_path / "g")
        await pilot.press("enter")
        await settle(app, pilot)
        assert (tmp_path / "g" / "merges.txt").is_file()
        assert bpe_tui.load(str(tmp_path / "g")).num_merges == 20


async def test_failed_save_notifies_and_keeps_the_app(tmp_path):
    app = classic_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")
        await settle(app, pilot)
        # chars table cannot be written as gpt2: an error, not a crash
        assert not app.main.save_table(str(tmp_path / "g"), "gpt2")
        await pilot.pause()
        assert any("gpt2 format holds byte-level" in n.message for n in said(app))
        # an unwritable place
        blocker = tmp_path / "file"
        blocker.write_text("x")
        assert not app.main.save_table(str(blocker / "t.json"), "native")
        await pilot.pause()
        assert any("t.json" in n.message and n.severity == "error" for n in said(app))
        assert blocker.read_text() == "x"
        assert app.session.trainer.steps_done == 1


async def test_open_table_then_corpus_and_bad_inputs(tmp_path):
    table_path = tmp_path / "t.json"
    bpe_tui.save(bpe_tui.train(str(CORPORA / "seed000.txt"), preset="classic", merges=12), str(table_path))
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("space")
        await settle(app, pilot)
        # a missing file: notification naming it, session kept
        app.open_path(str(tmp_path / "missing.txt"))
        await settle(app, pilot)
        assert isinstance(app.session, ExploreSession) and app.session.trainer.steps_done == 1
        assert any("missing.txt" in n.message for n in said(app))
        # a typo in the dialog is said at once, before unsaved merges are asked about
        await pilot.press("o")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = str(tmp_path / "typo.txt")
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("typo.txt: no such file or directory" in n.message for n in said(app))
        assert isinstance(app.session, ExploreSession) and app.session.trainer.steps_done == 1
        # binary garbage as a corpus: notification naming the file
        app.open_path(str(bad))
        await settle(app, pilot)
        assert isinstance(app.session, ExploreSession) and app.session.trainer.steps_done == 1
        assert any("bad.json" in n.message for n in said(app))
        # o opens a table through the dialog: inspect mode
        await pilot.press("o")
        await pilot.pause()
        app.screen.query_one("#path-input", Input).value = str(table_path)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)  # the step made is not saved: asks first
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.session, InspectSession)
        assert app.history.view.count == 12
        assert "format native" in app.status.text
        # and a corpus: explore mode again
        app.open_path(str(CORPORA / "cat_sat.txt"))
        await settle(app, pilot)
        assert isinstance(app.session, ExploreSession)
        assert app.session.trainer.name == "cat_sat.txt"
        assert app.session.trainer.steps_done == 0


async def test_bad_corpus_at_startup_keeps_the_app_up(tmp_path):
    app = ExplorerApp(paths=[str(tmp_path / "nope.txt")], config=default_config(None))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.session is None
        assert any("nope.txt" in n.message for n in said(app))
        assert "could not open" in app.status.text
        await pilot.press("space")  # nothing loaded: a notice, no crash
        await settle(app, pilot)


async def test_find_token_dialog():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, FindScreen)
        await pilot.press(*"the", "enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, FindScreen)
        table = app.session.table()
        assert app.detail.token_id == table.search("the")[0]
        assert app.query_one(TabbedContent).active == "tab-token"
        labels = app.detail.tree_labels()
        assert labels[0].startswith(table.display(app.detail.token_id))
        assert len(labels) >= 3


async def test_help_screen_lists_every_key():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        for command in COMMANDS:
            # the explore screen's keys; not the views' (compare, audit, evaluate: their own
            # footers), the inspect screen's, or the tour's (no tour is open)
            if command.where not in (*VIEWS, INSPECT, TOUR):
                assert f"{command.shown_keys}  {command.description}" in text
        # keys of the main screen do nothing behind the dialog
        await pilot.press("space")
        assert app.session.trainer.steps_done == 0
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_auto_play_and_rate():
    app = demo_app()  # 744 merges: play keeps going however slow the machine makes each key press
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.play_rate == 4
        # (each key's effect is waited for: on a loaded machine a key press can return first)
        await pilot.press("plus", "plus", "plus")
        await settle_until(app, pilot, lambda: app.play_rate == 32, "three + did not make 32/s")
        await pilot.press("minus")
        await settle_until(app, pilot, lambda: app.play_rate == 16, "- did not make 16/s")
        await pilot.press("p")
        await settle_until(app, pilot, lambda: app.playing and "playing 16/s" in app.status.text, "p did not start auto-play")
        tr = app.session.trainer
        await settle_until(app, pilot, lambda: tr.steps_done >= 2, "auto-play made no merges")
        await pilot.press("p")
        await settle_until(app, pilot, lambda: not app.playing, "p did not stop auto-play")
        steps = tr.steps_done
        await settle(app, pilot)  # nothing is left to merge once play has stopped
        assert tr.steps_done == steps
        # escape stops auto-play too
        await pilot.press("p")
        await settle_until(app, pilot, lambda: app.playing, "p did not start auto-play again")
        await pilot.press("escape")
        await settle_until(app, pilot, lambda: not app.playing, "escape did not stop auto-play")


async def test_auto_play_stops_itself_at_the_target():
    app = classic_app("low_lower_lowest.txt", merges=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press(*["plus"] * 6)  # 64 merges per second
        await pilot.press("p")
        tr = app.session.trainer
        await settle_until(app, pilot, lambda: not app.playing, "auto-play did not stop at the target")
        assert tr.steps_done == 3
        assert any(n.title == "auto-play stopped" and "3 merges" in n.message for n in said(app))
        assert "playing" not in app.status.text
        # the table on screen is the trainer's: three rows of history
        assert app.history.view.count == 3


async def test_command_palette_has_every_action():
    app = demo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        titles = {c.title for c in app.get_system_commands(app.screen)}
        for command in commands_for(EXPLORE):
            if command.palette:
                assert command.title in titles, command.description
        assert "Slower auto-play" in titles
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"ten merge")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.session.trainer.steps_done == 10


async def test_stats_and_watch_words():
    app = classic_app("low_lower_lowest.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.main.go_to_step(4)
        await settle(app, pilot)
        tr = app.session.trainer
        assert app.stats.counts == [e.count for e in tr.history]
        assert app.stats.totals[0] == tr.initial_total_tokens and app.stats.totals[-1] == tr.total_tokens
        app.query_one(TabbedContent).active = "tab-stats"
        app.query_one("#watch-input", Input).value = "low lowest"
        await settle(app, pilot)
        assert app.stats.watch_lines[0] == "low</w>: one token since merge 3" or app.stats.watch_lines[0].startswith("low: one token since merge 3")
        assert "tokens now" in app.stats.watch_lines[1]


async def test_ties_are_marked_and_the_rule_named():
    # seed 001: (t,h) wins a four-way tie at 3 under first-seen
    app = classic_app("court.txt")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        rows = app.pairs.rows
        assert rows[0][1:4] == ("t", "h", "3")
        assert [r[4] for r in rows].count("=") == 4
        assert "tie with 3 other pairs" in app.pairs.caption_text
        assert "first-seen picks it" in app.pairs.caption_text


async def test_e_focuses_the_encode_box():
    app = classic_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("e", *"low")
        await settle(app, pilot)
        assert app.query_one("#encode-input", Input).value == "low"
        assert app.encode.ids == app.session.table().encode("low")
