-- Run once by the steady-server package's postinst while the datadir is
-- initialised: root@localhost logs in by operating-system user, as on Debian.
ALTER USER 'root'@'localhost' IDENTIFIED WITH auth_socket;
