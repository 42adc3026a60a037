// A value an operator copies (a secret shown once, an id, an address): shown in monospace with a copy button.
import { ActionIcon, Code, CopyButton, Group, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export function CopyValue({
  value,
  label,
  block = false,
  display,
}: {
  value: string;
  label: string;
  block?: boolean;
  /** What to show instead of the whole value (e.g. shortKey(value) in a table); the copy is always the whole value. */
  display?: string;
}) {
  return (
    <Group gap={4} wrap="nowrap" align="center">
      <Code
        block={block}
        style={{ wordBreak: 'break-all', flex: block ? 1 : undefined }}
        title={display !== undefined && display !== value ? value : undefined}
      >
        {display ?? value}
      </Code>
      <CopyButton value={value} timeout={2000}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : `Copy ${label}`} withArrow>
            <ActionIcon
              variant="subtle"
              color={copied ? 'teal' : 'gray'}
              onClick={copy}
              aria-label={copied ? `${label} copied` : `Copy ${label}`}
            >
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
