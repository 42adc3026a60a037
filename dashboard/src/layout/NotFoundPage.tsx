import { Link } from 'react-router';
import { Button, Stack, Text, Title } from '@mantine/core';

export function NotFoundPage() {
  return (
    <Stack align="flex-start">
      <Title order={1} size="h2">
        Page not found
      </Title>
      <Text>There is no dashboard page at this address.</Text>
      <Button component={Link} to="/apps">
        Go to your apps
      </Button>
    </Stack>
  );
}
