#include "CCurlShim.h"
