"""Hidden tests for tagfold.  Non-ASCII text is written with escapes so that
the precomposed (NFC) and decomposed (NFD) spellings are unambiguous."""

from __future__ import annotations

import unicodedata

from tagfold import TagIndex, display_form, fold, strip_marks

CAFE_NFC = "Caf\u00e9"  # e with acute as one code point
CAFE_NFD = "Cafe\u0301"  # e followed by COMBINING ACUTE ACCENT
RESUME_NFC = "R\u00e9sum\u00e9"
RESUME_NFD = "Re\u0301sume\u0301"
CREME_BRULEE_NFC = "Cr\u00e8me br\u00fbl\u00e9e"


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def test_decomposed_accents_are_ignored():
    check(fold(RESUME_NFD) == "resume", f"fold gave {fold(RESUME_NFD)!r}")
    index = TagIndex([RESUME_NFD])
    check("resume" in index, "plain spelling should match the decomposed tag")


def test_precomposed_accents_are_ignored():
    check(fold(RESUME_NFC) == "resume", f"fold gave {fold(RESUME_NFC)!r}")
    index = TagIndex(["resume"])
    check(RESUME_NFC in index, "precomposed accented spelling should match 'resume'")
    check(index.uses(RESUME_NFC) == 1, "uses should count the equivalent spelling")


def test_nfc_and_nfd_spellings_are_one_tag():
    index = TagIndex()
    first = index.add(CAFE_NFC)
    second = index.add(CAFE_NFD)
    third = index.add("cafe")
    check(len(index) == 1, f"expected one tag, got {list(index)!r}")
    check(first == second == third == CAFE_NFC, repr((first, second, third)))
    check(index.uses("CAFE") == 3, f"uses: {index.uses('CAFE')}")


def test_find_matches_accented_tags_from_unaccented_query():
    index = TagIndex([CREME_BRULEE_NFC, "Cream tea", "Creme fraiche", "\u0130stanbul"])
    check(index.find("creme") == ["Creme fraiche", CREME_BRULEE_NFC], repr(index.find("creme")))
    check(index.find("istan") == ["\u0130stanbul"], repr(index.find("istan")))


def test_case_folding_and_compatibility_variants():
    check(fold("STRASSE") == fold("stra\u00dfe"), "sharp s should fold to ss")
    check(fold("\uff30\uff59\uff34\uff48\uff4f\uff4e") == "python", "full-width letters")
    check(fold("\ufb01nance") == "finance", "fi ligature")
    check(fold("\u041c\u043e\u0441\u043a\u0432\u0430") == "\u043c\u043e\u0441\u043a\u0432\u0430", "Cyrillic")
    check(fold("\u6771\u4eac") == "\u6771\u4eac", "CJK text is unchanged")


def test_separators_collapse():
    index = TagIndex(["Machine Learning", "machine_learning", "  MACHINE--learning  ", "machine\tlearning"])
    check(len(index) == 1, repr(list(index)))
    check(index.find("mach") == ["Machine Learning"], repr(index.find("mach")))


def test_first_spelling_wins_and_is_shown_in_nfc():
    index = TagIndex()
    shown = index.add("  Cafe\u0301   au  lait ")
    check(shown == "Caf\u00e9 au lait", repr(shown))
    check(unicodedata.is_normalized("NFC", shown), "display form must be NFC")
    check(index.add("cafe au lait") == shown, "later spellings map to the first one")
    check(display_form("a\u00a0 b") == "a b", repr(display_form("a\u00a0 b")))


def test_find_ranks_by_use_then_spelling():
    index = TagIndex(["beta", "Bravo", "bravo", "Banana", "alpha"])
    check(index.find("b") == ["Bravo", "Banana", "beta"], repr(index.find("b")))
    check(index.find("b", limit=1) == ["Bravo"], repr(index.find("b", limit=1)))
    check(index.find("zzz") == [], "no hits")


def test_blank_tags_are_rejected():
    index = TagIndex()
    for blank in ["", "   ", "_-_", "\u3000"]:
        try:
            index.add(blank)
        except ValueError:
            continue
        raise AssertionError(f"{blank!r} should be rejected")
    check(len(index) == 0, "nothing stored")


def test_remove_forgets_every_spelling():
    index = TagIndex(["Data Science", "data-science"])
    check(index.remove("DATA_SCIENCE"), "remove should report a known tag")
    check(len(index) == 0 and index.uses("data science") == 0, "tag should be gone")
    check(not index.remove("data science"), "second remove finds nothing")


def test_strip_marks_removes_precomposed_accents():
    got = strip_marks(CREME_BRULEE_NFC)
    check(got == "Creme brulee", f"strip_marks gave {got!r}")
    check(strip_marks(CAFE_NFD) == "Cafe", f"strip_marks gave {strip_marks(CAFE_NFD)!r}")
