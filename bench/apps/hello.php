<?php
// The "php" scenario's script, run by php-fpm over FastCGI.
header('Content-Type: text/plain');
echo "hello, world!\n";
