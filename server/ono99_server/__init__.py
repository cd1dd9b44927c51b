"""The ONO 99 game server: lobby, tables, clocks, persistence, the TCP listener."""

from .config import ServerConfig
from .game_server import Server

__all__ = ["Server", "ServerConfig"]
