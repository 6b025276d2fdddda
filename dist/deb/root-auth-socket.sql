-- Run once by the steady-server package's postinst while the datadir is
-- initialised: root@localhost logs in by operating-system user, as on Debian
-- (sudo mysql). INSTALL PLUGIN records auth_socket in mysql.plugin, so every
-- later start loads it.
INSTALL PLUGIN auth_socket SONAME 'auth_socket.so';
ALTER USER 'root'@'localhost' IDENTIFIED WITH auth_socket;
