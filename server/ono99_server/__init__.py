"""The ONO 99 game server: lobby, tables, clocks, persistence, the TCP listener."""

from .app import Server
from .config import ServerConfig

__all__ = ["Server", "ServerConfig"]
