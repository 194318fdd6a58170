"""A way out for a kind's own helper process (not an agent): exactly the hosts it names, through the proxy jail.

An ARC-AGI-3 game played online runs in the toolkit's jail with no network; it reaches the ARC API through a
unix socket to a proxy of the run's proxy jail (engine/proxy_jail.py) whose filter lets that host:port through
and refuses the rest, as an agent's sandbox reaches its model gateway. The kinds ask for one through
`RunServices.open_egress` (datamodel/run_services.py); this module is the engine's answer.
"""

from __future__ import annotations

from pathlib import Path

from agent_eval.datamodel.run_services import EgressError
from agent_eval.datamodel.sandbox_policy import SandboxError, load_policy
from agent_eval.engine.proxy_jail import PROXY_SOCKET, ItemProxy, ProxyError
from agent_eval.engine.sandbox import Endpoint, open_proxy


class Egress:
    """One proxy for `endpoints` ("host:port" or URLs, as an agent's endpoints are written). `net_dir` holds its
    socket, `socket_name`; a jail binds the folder and connects there. A context manager."""

    socket_name = PROXY_SOCKET

    def __init__(self, endpoints: list[str]):
        try:
            self._proxy: ItemProxy | None = open_proxy([Endpoint.parse(e) for e in endpoints], load_policy())
        except (ProxyError, SandboxError) as error:
            raise EgressError(f"the proxy to {', '.join(endpoints)} did not start: {error}") from None
        self.net_dir: Path = self._proxy.net_dir

    def refused_requests(self) -> list[str]:
        return self._proxy.refused_requests() if self._proxy else []

    def close(self) -> None:
        proxy, self._proxy = self._proxy, None
        if proxy is not None:
            proxy.close()

    def __enter__(self) -> "Egress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
