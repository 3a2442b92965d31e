import pytest

import sbcli


@pytest.fixture(scope="module")
def syncbench():
    return sbcli.require_binary()
