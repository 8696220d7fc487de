import pytest

from solution import PageOutOfRange, Paginator


def sizes(paginator):
    return [len(page.items) for page in paginator]


def test_exact_multiple_has_no_trailing_empty_page():
    paginator = Paginator(list(range(10)), per_page=5)
    assert paginator.num_pages == 2
    assert sizes(paginator) == [5, 5]
    assert paginator.page(2).has_next is False


def test_partial_last_page_without_orphans():
    paginator = Paginator(list(range(11)), per_page=5)
    assert paginator.num_pages == 3
    assert sizes(paginator) == [5, 5, 1]


def test_leftovers_equal_to_orphans_are_folded_into_previous_page():
    paginator = Paginator(list(range(23)), per_page=5, orphans=3)
    assert paginator.num_pages == 4
    last = paginator.page(4)
    assert list(last.items) == list(range(15, 23))
    assert (last.first_index, last.last_index) == (16, 23)


def test_leftovers_above_orphans_keep_their_own_page():
    paginator = Paginator(list(range(24)), per_page=5, orphans=3)
    assert sizes(paginator) == [5, 5, 5, 5, 4]


def test_short_collection_and_empty_collection_have_one_page():
    assert sizes(Paginator(list("ab"), per_page=5, orphans=3)) == [2]
    empty = Paginator([], per_page=5)
    assert empty.num_pages == 1
    page = empty.page(1)
    assert (list(page.items), page.first_index, page.last_index) == ([], 0, 0)


def test_page_out_of_range():
    paginator = Paginator(list(range(10)), per_page=5)
    with pytest.raises(PageOutOfRange):
        paginator.page(3)
    with pytest.raises(PageOutOfRange):
        paginator.page(0)


def test_get_page_clamps_and_understands_last():
    paginator = Paginator(list(range(20)), per_page=5, orphans=2)
    assert paginator.get_page("last").number == 4
    assert paginator.get_page("99").number == 4
    assert paginator.get_page("-3").number == 1
    assert paginator.get_page("two").number == 1
    assert list(paginator.get_page("last").items) == list(range(15, 20))


def test_invalid_configuration_is_rejected():
    with pytest.raises(ValueError):
        Paginator([], per_page=0)
    with pytest.raises(ValueError):
        Paginator([], per_page=5, orphans=5)
