/* command.c - the ':' command table (see command.h). */
#include "tui/command.h"

#include <stddef.h>
#include <string.h>

const tui_command tui_commands[] = {
#define TUI_CMD_INFO(id, name, args, min, help) {CMD_##id, name, args, min, help},
    TUI_COMMANDS(TUI_CMD_INFO)
#undef TUI_CMD_INFO
        {CMD_NONE, NULL, NULL, 0, NULL},
};

const tui_command *command_find(const char *name)
{
    for (int i = 0; tui_commands[i].name; i++)
        if (strcmp(tui_commands[i].name, name) == 0)
            return &tui_commands[i];
    return NULL;
}
